// The garbage collector's setting for a process that hosts the port (the CLI and the desktop app's
// main process), applied once at start.
//
// V8 lets the old generation grow to a limit it recomputes after each full collection from how fast
// the program allocates and how fast it collects. For the port the live heap is small (~16 MiB), and
// under load V8 can settle on a limit so near it that the room left is less than one young generation:
// it then starts incremental marking again as soon as a full collection ends, ~8 times a second, with
// its write barriers and helper threads running all the time. A LIST costs 165–200 µs of CPU in such a
// process and 110–125 µs in one that settled higher, and which one a process settles on is chance
// (docs/performance.md, "A LIST's CPU was bimodal"). A fixed growth factor of 4 keeps the room above
// a young generation, so every process runs the fast way.
import { setFlagsFromString } from 'node:v8';

/** Old-generation growth after a full collection, in percent: the limit is (1 + p/100) × the live heap. */
export const HEAP_GROWING_PERCENT = 300;

/**
 * Fixes V8's old-generation growth factor for this process. `PEERSCOPE_HEAP_GROWING_PERCENT` overrides it
 * (0 restores V8's own heuristic). V8 reads this flag each time it sets the limit, so setting it after
 * start takes effect at the next full collection. Returns the percent applied (0: V8's own).
 */
export function fixHeapGrowth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PEERSCOPE_HEAP_GROWING_PERCENT;
  const percent = raw === undefined || raw === '' ? HEAP_GROWING_PERCENT : Number(raw);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1_000)
    throw new Error(`PEERSCOPE_HEAP_GROWING_PERCENT: "${raw}" is not a whole number from 0 to 1000`);
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
