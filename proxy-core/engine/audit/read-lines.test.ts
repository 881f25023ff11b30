// Reading audit logs line by line from real files in a temp directory: plain, .gz, a .gz cut short,
// standard input, and a followed file that grows, gets a half-written line, and is rotated away.
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readLines, type AuditLine } from './read-lines.js';
import { rotatedFiles } from './rotated.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-lines-'));

async function collect(lines: AsyncIterable<AuditLine>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of lines) out.push(`${l.line}:${l.text}`);
  return out;
}

describe('readLines', () => {
  const aborts: AbortController[] = [];
  afterEach(() => {
    for (const a of aborts) a.abort();
  });

  it('reads a plain file, CRLF or LF, and counts the bytes read', async () => {
    const file = join(dir, 'plain.log');
    writeFileSync(file, 'one\r\ntwo\nthree');
    let bytes = 0;
    expect(await collect(readLines(file, { onBytes: (n) => (bytes += n) }))).toEqual(['1:one', '2:two', '3:three']);
    expect(bytes).toBe(14);
  });

  it('reads a .gz file; one cut short gives the lines before the cut, then fails', async () => {
    const whole = Array.from({ length: 2000 }, (_, i) => `{"line":${i + 1}}`).join('\n') + '\n';
    const gz = gzipSync(whole);
    const file = join(dir, 'whole.log.gz');
    writeFileSync(file, gz);
    expect(await collect(readLines(file))).toHaveLength(2000);

    const cut = join(dir, 'cut.log.gz');
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length / 2)));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const l of readLines(cut)) seen.push(l.text);
    })().catch((err: NodeJS.ErrnoException) => err);
    expect((error as NodeJS.ErrnoException).code).toBe('Z_BUF_ERROR');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(2000);
    expect(seen[seen.length - 1]).toBe(`{"line":${seen.length}}`);
  });

  it('reads standard input ("-")', async () => {
    expect(await collect(readLines('-', { stdin: Readable.from(['a\nb', '\nc\n']) }))).toEqual(['1:a', '2:b', '3:c']);
  });

  it('ends a read of standard input that never ends when aborted, after the lines that came', async () => {
    const input = new PassThrough();
    input.write('a\nb\n');
    const abort = new AbortController();
    const lines: string[] = [];
    setTimeout(() => abort.abort(), 50);
    for await (const l of readLines('-', { stdin: input, signal: abort.signal })) lines.push(l.text);
    expect(lines).toEqual(['a', 'b']);
  });

  it('follows a file as it grows, holds back a half-written line, and reads the file that takes its name after a rotation', async () => {
    const file = join(dir, 'followed.log');
    writeFileSync(file, 'first\nsecond\n');
    const abort = new AbortController();
    aborts.push(abort);
    const got: string[] = [];
    let wake: (() => void) | undefined;
    const waitFor = async (n: number) => {
      while (got.length < n) await new Promise<void>((resolve) => (wake = resolve));
    };
    const reading = (async () => {
      for await (const l of readLines(file, { follow: true, pollMs: 10, signal: abort.signal })) {
        got.push(`${l.line}:${l.text}`);
        wake?.();
      }
    })();
    await waitFor(2);
    appendFileSync(file, 'third\nfou');
    await waitFor(3);
    // The half-written line is not given until it ends.
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual(['1:first', '2:second', '3:third']);
    appendFileSync(file, 'rth\n');
    await waitFor(4);
    // Rotation: the old file gets its last line, the new one is read from its start.
    appendFileSync(file, 'fifth\n');
    renameSync(file, `${file}.1`);
    writeFileSync(file, 'new-first\n');
    await waitFor(6);
    abort.abort();
    await reading;
    expect(got).toEqual(['1:first', '2:second', '3:third', '4:fourth', '5:fifth', '1:new-first']);
  });

  it('ends a follow at once when aborted, without reporting the unfinished last line', async () => {
    const file = join(dir, 'aborted.log');
    writeFileSync(file, 'done\nhalf');
    const abort = new AbortController();
    const lines: string[] = [];
    setTimeout(() => abort.abort(), 50);
    for await (const l of readLines(file, { follow: true, pollMs: 10, signal: abort.signal })) lines.push(l.text);
    expect(lines).toEqual(['done']);
  });
});

describe('rotatedFiles', () => {
  it("lists kube-apiserver's and logrotate's rotated files, oldest first", () => {
    const d = mkdtempSync(join(tmpdir(), 'audit-rotated-'));
    for (const f of [
      'audit.log',
      'audit.log.1',
      'audit.log.2.gz',
      'audit-2026-11-25T10-00-00.000.log',
      'audit-2026-11-24T10-00-00.000.log.gz',
      'other.log.1',
      'audit.log.bak',
    ])
      writeFileSync(join(d, f), '');
    expect(rotatedFiles(join(d, 'audit.log')).map((f) => f.slice(d.length + 1))).toEqual([
      'audit.log.2.gz',
      'audit.log.1',
      'audit-2026-11-24T10-00-00.000.log.gz',
      'audit-2026-11-25T10-00-00.000.log',
    ]);
  });
});
