import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkRequestHead } from './read.js';

function head(raw: string[]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    headers[name] = headers[name] === undefined ? (raw[i + 1] as string) : `${headers[name]}, ${raw[i + 1]}`;
  }
  return { rawHeaders: raw, headers } as unknown as IncomingMessage;
}

describe('request head checks (RFC 9112 §3.2, §6.1)', () => {
  it('passes one Host and chunked in any case', () => {
    expect(checkRequestHead(head(['Host', 'localhost', 'Transfer-Encoding', 'Chunked']))).toBeUndefined();
    expect(checkRequestHead(head(['host', 'localhost']))).toBeUndefined();
    expect(checkRequestHead(head([]))).toBeUndefined();
  });

  it('refuses more than one Host line with 400', () => {
    expect(checkRequestHead(head(['Host', 'localhost', 'HOST', 'evil.example']))).toMatchObject({
      kind: 'Status',
      code: 400,
      reason: 'BadRequest',
    });
  });

  it('refuses any other transfer coding, or chunked twice, with 501', () => {
    for (const raw of [
      ['Transfer-Encoding', 'gzip, chunked'],
      ['Transfer-Encoding', 'identity'],
      ['Transfer-Encoding', 'gzip', 'Transfer-Encoding', 'chunked'],
      ['Transfer-Encoding', 'chunked', 'transfer-encoding', 'chunked'],
    ]) {
      expect(checkRequestHead(head(raw)), raw.join(' ')).toMatchObject({ kind: 'Status', code: 501 });
    }
  });
});
