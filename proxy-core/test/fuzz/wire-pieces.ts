// Byte-level pieces of a rendered request: a chunked body cut where the spec says, and the
// invalid header lines a spec may ask for.
import type { BodySpec, InvalidHeader } from './request-spec.js';

export function chunkedBytes(b: Extract<BodySpec, { kind: 'chunked' }>): Buffer {
  const body = Buffer.from(b.body);
  const cuts = [...new Set(b.cuts.map((c) => (body.length ? c % body.length : 0)))].filter((c) => c > 0).sort((x, y) => x - y);
  const pieces: Buffer[] = [];
  let last = 0;
  for (const c of [...cuts, body.length]) {
    if (c > last) {
      const size = (c - last).toString(16);
      pieces.push(
        Buffer.from(`${b.upper ? size.toUpperCase() : size}${b.ext ? ';ext=1;q="x"' : ''}\r\n`, 'latin1'),
        body.subarray(last, c),
        Buffer.from('\r\n'),
      );
    }
    last = c;
  }
  pieces.push(Buffer.from(`0\r\n${b.trailers ? 'X-Trailer: t\r\n' : ''}\r\n`, 'latin1'));
  return Buffer.concat(pieces);
}

export const INVALID_LINES: Record<InvalidHeader, string> = {
  'name-space': 'X Bad: 1',
  'name-nul': 'X-B\x00ad: 1',
  'name-colon': ': no-name',
  'value-nul': 'X-Bad: a\x00b',
  'value-cr': 'X-Bad: a\rb',
  'value-lf': 'X-Bad: a\nb',
  'value-del': 'X-Bad: a\x7fb',
  'obs-fold': 'X-Bad: one\r\n two',
  'name-8bit': 'X-B\xe9d: 1',
};
