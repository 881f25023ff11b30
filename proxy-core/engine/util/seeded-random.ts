// A repeatable stream of numbers in [0, 1) from a seed, for the traffic generator and tests that must
// make the same random choices on every run.

/** mulberry32: small, fast, and good enough to make a run repeatable from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
