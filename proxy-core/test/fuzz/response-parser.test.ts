// The fuzz's strict response parser: it must accept what RFC 9112 allows and refuse the rest, or
// the fuzz would miss (or invent) malformed answers.
import { describe, expect, it } from 'vitest';
import { ResponseParser, ResponseSyntaxError } from './response-parser.js';

function parseAll(text: string, expecting: { head?: boolean; upgrade?: boolean }[] = [{}], closed = true) {
  const p = new ResponseParser();
  p.push(Buffer.from(text, 'latin1'));
  if (closed) p.end();
  const out = [];
  for (const e of expecting) {
    for (;;) {
      const r = p.next({ head: e.head ?? false, upgrade: e.upgrade ?? false });
      if (!r) break;
      out.push(r);
      if (!r.interim) break;
    }
  }
  return out;
}

describe('ResponseParser', () => {
  it('reads Content-Length, chunked (with extensions and trailers), 1xx, 204, HEAD and close-delimited bodies', () => {
    const r = parseAll(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nab\r\n1\r\nc\r\n0\r\nX-T: 1\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\nHTTP/1.0 200 OK\r\n\r\nto the end',
      [{}, {}, {}, { head: true }, {}],
    );
    expect(r.map((x) => [x.status, x.interim, x.body.toString()])).toEqual([
      [100, true, ''],
      [200, false, 'abc'],
      [200, false, 'abc'],
      [204, false, ''],
      [404, false, ''],
      [200, false, 'to the end'],
    ]);
    expect(r.at(-1)?.closeDelimited).toBe(true);
  });

  it('waits for more bytes, then reports a cut as a truncation', () => {
    const p = new ResponseParser();
    p.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    expect(p.next({ head: false, upgrade: false })).toBeUndefined();
    p.end();
    expect(() => p.next({ head: false, upgrade: false })).toThrow(expect.objectContaining({ truncated: true }) as unknown as Error);
  });

  it.each([
    ['HTTP/1.1 200\r\n\r\n', /bad status line/],
    ['HTTP/2 200 OK\r\n\r\n', /bad status line/],
    ['HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n', /not a token/],
    ['HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n', /invalid byte/],
    ['HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n', /obs-fold/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', /conflicting Content-Length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', /both Transfer-Encoding and Content-Length/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /unsupported Transfer-Encoding/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /bad chunk size/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc\r\n', /not followed by CRLF/],
    ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /asked for no upgrade/],
    ['HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\nabc', /204 with a body/],
  ])('refuses %j', (text, message) => {
    let error: unknown;
    try {
      parseAll(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ResponseSyntaxError);
    expect((error as Error).message).toMatch(message);
  });

  it('ignores what follows a response that said Connection: close', () => {
    const p = new ResponseParser();
    p.push(Buffer.from('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\ngarbage'));
    expect(p.next({ head: true, upgrade: false })?.status).toBe(400);
    expect(p.next({ head: false, upgrade: false })).toBeUndefined();
    expect(p.ignoredAfterClose).toBe(7);
  });
});
