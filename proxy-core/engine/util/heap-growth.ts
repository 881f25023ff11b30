// The garbage collector's settings for a process that hosts the port (the CLI and the desktop app's
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
//
// Memory outside the heap has a limit of its own: each 64 MiB of Buffers allocated since the last full
// collection starts another one. A watch relays its bytes in Buffers that die within a turn (one per
// TLS record, 16 KiB each), so a 100,000-event watch (49 MB) cost a full collection each time, ~25 ms
// of CPU with its helper threads. V8 13 (Node 24) can count that memory in the heap's own limit
// instead, which the growth factor above sets; V8 12 (Node 22) has no such setting and answers the same
// pressure with young-generation collections, which cost little. V8 14.8 made that counting how it
// always works and removed the flag (V8 bug 361124432), so the desktop app's V8 (Electron 45's is
// later) is left as it is: setting a flag V8 does not know prints an error at every start.
import { setFlagsFromString } from 'node:v8';

/** Old-generation growth after a full collection, in percent: the limit is (1 + p/100) × the live heap. */
export const HEAP_GROWING_PERCENT = 300;

/** The V8 releases, as [major, minor], that have the flag counting Buffer memory in the heap's limit: from `since`, before `until`. */
const EXTERNAL_IN_LIMIT_FLAG = { since: [13, 0], until: [14, 8] } as const;

export interface HeapSettings {
  /** The growth percent applied; 0: V8's own heuristic. */
  readonly growingPercent: number;
  /** Whether Buffer memory counts in the heap's limit instead of a 64 MiB limit of its own. */
  readonly externalInHeapLimit: boolean;
  /** The V8 flags that make it so. */
  readonly flags: readonly string[];
}

const atLeast = (version: readonly number[], [major, minor]: readonly [number, number]): boolean =>
  (version[0] ?? 0) > major || ((version[0] ?? 0) === major && (version[1] ?? 0) >= minor);

/**
 * The settings for this environment and V8. `PEERSCOPE_HEAP_GROWING_PERCENT` overrides the factor; 0
 * restores V8's own heuristics for both, where V8 still has a flag for the second.
 */
export function heapSettings(env: NodeJS.ProcessEnv, v8Version: string): HeapSettings {
  const raw = env.PEERSCOPE_HEAP_GROWING_PERCENT;
  const percent = raw === undefined || raw === '' ? HEAP_GROWING_PERCENT : Number(raw);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1_000)
    throw new Error(`PEERSCOPE_HEAP_GROWING_PERCENT: "${raw}" is not a whole number from 0 to 1000`);
  const flags = [`--heap-growing-percent=${percent}`];
  const version = v8Version.split('.').map((n) => Number.parseInt(n, 10));
  if (atLeast(version, EXTERNAL_IN_LIMIT_FLAG.until)) return { growingPercent: percent, externalInHeapLimit: true, flags };
  if (!atLeast(version, EXTERNAL_IN_LIMIT_FLAG.since)) return { growingPercent: percent, externalInHeapLimit: false, flags };
  const externalInHeapLimit = percent > 0;
  flags.push(externalInHeapLimit ? '--external-memory-accounted-in-global-limit' : '--no-external-memory-accounted-in-global-limit');
  return { growingPercent: percent, externalInHeapLimit, flags };
}

/**
 * Applies {@link heapSettings} to this process. V8 reads these flags each time it sets its limits, so
 * setting them after start takes effect at the next collection.
 */
export function fixHeapGrowth(env: NodeJS.ProcessEnv = process.env): HeapSettings {
  const settings = heapSettings(env, process.versions.v8);
  for (const flag of settings.flags) setFlagsFromString(flag);
  return settings;
}
