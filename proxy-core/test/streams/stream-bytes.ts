// The bytes the stream upstream sends and the test expects: watch-event lines whose counters make every
// 500-odd bytes unique, so a lost, repeated or reordered piece changes the hash.
import { createHash } from 'node:crypto';

const PAD = 'x'.repeat(400);

export function streamBytes(total: number): Buffer {
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; at < total; i++) {
    const line = `{"type":"ADDED","object":{"apiVersion":"example.io/v1","kind":"Thing","metadata":{"name":"t-${i}","namespace":"d","resourceVersion":"${i + 1}"},"spec":{"pad":"${PAD}"}}}\n`;
    at += out.write(line, at, 'latin1');
  }
  return out;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
