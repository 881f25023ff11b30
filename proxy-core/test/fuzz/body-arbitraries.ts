// Arbitraries for request bodies and their framing: none, Content-Length, chunked (with cuts,
// extensions, trailers), framing the parser must refuse, and transfer codings other than chunked.
import fc from 'fast-check';
import type { BadFraming, BodySpec } from './request-spec.js';

// Mostly small bodies; now and then 16–70 KB, and rarely 1 MiB (each costs the fuzz time, not the port).
const bodyBytes = fc.oneof(
  { weight: 400, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 64 }) },
  { weight: 300, arbitrary: fc.uint8Array({ minLength: 65, maxLength: 4_096 }) },
  { weight: 12, arbitrary: fc.integer({ min: 16_000, max: 70_000 }).map((n) => new Uint8Array(n).fill(0x5a)) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(1024 * 1024).fill(0x4d)) },
);
export const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 16, arbitrary: bodyBytes.map((body) => ({ kind: 'length' as const, body })) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('chunked' as const),
      body: bodyBytes,
      cuts: fc.array(fc.nat(), { maxLength: 5 }),
      ext: fc.boolean(),
      upper: fc.boolean(),
      trailers: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<BadFraming>(
        'cl-and-te',
        'cl-not-a-number',
        'cl-negative',
        'cl-duplicate',
        'cl-list',
        'chunk-size-garbage',
        'chunk-no-crlf',
        'te-unknown',
        'short-body',
        'long-body',
      )
      .map((variant) => ({ kind: 'bad' as const, variant })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('coded' as const),
      te: fc.constantFrom('gzip, chunked', 'deflate,chunked', 'x-custom, chunked'),
      body: fc.uint8Array({ minLength: 1, maxLength: 200 }),
    }),
  },
);
