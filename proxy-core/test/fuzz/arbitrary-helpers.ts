// Small fast-check building blocks the request arbitraries share: an occasional value, an HTTP
// token, and a field value a parser must accept.
import fc from 'fast-check';

/** `arb` about once in `oneIn` draws, else undefined. (fc.option's `freq` is the other way round.) */
export function sometimes<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const token = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...TCHAR.split('')), minLength: min, maxLength: max });
/** Field-value bytes a parser must accept: visible ASCII, space, tab inside, obs-text. */
const valueChar = fc
  .oneof(
    { weight: 20, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
    { weight: 2, arbitrary: fc.constant(0x20) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((c) => String.fromCharCode(c));
export const fieldValue = (max: number) =>
  fc.string({ unit: valueChar, minLength: 1, maxLength: max }).map((v) => v.replace(/^[ \t]+|[ \t]+$/g, '') || 'v');
