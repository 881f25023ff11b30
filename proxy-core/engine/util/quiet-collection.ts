// Gives memory back when the port goes quiet. Under load the port lets garbage wait (heap-growth.ts:
// its old generation may grow to 4× what is live, for CPU per request), and V8 collects it only when a
// limit is reached: after a burst — the bench's load, an audit webhook's batches — the process kept
// what the burst left, 250–360 MiB after 200,000 recorded webhook events, for as long as it stayed
// quiet (V8's memory reducer gave none of it back within 40 s). Once the event loop has been idle for
// five seconds and the process is more than GROWTH_WORTH_COLLECTING above its size at rest (and has grown
// since the last collection), one full collection of the kind V8
// runs under memory pressure ("last resort": it also shrinks the young generation and returns empty
// pages) takes it back to what is live: ~50–100 ms of CPU once per quiet spell, never during a burst.
// The cost is the one the memory reducer already has (docs/decisions.md): the first requests after
// the spell run while V8 optimises the request path again. PEERSCOPE_QUIET_COLLECTION_MS sets the
// spell's length; 0 turns it off.
import { performance } from 'node:perf_hooks';
import { collector } from './collect.js';

export interface QuietCollectionOptions {
  /** How long the event loop must have been idle, in ms. */
  readonly quietMs?: number;
  /** Growth of RSS above the port at rest that makes a collection worth its CPU, in bytes. */
  readonly growthBytes?: number;
  /** Growth of RSS since the last collection that makes another worth its CPU, in bytes. */
  readonly sinceLastBytes?: number;
  /** How often the loop's idleness is read, in ms. */
  readonly tickMs?: number;
}

/**
 * How far above the port at rest (its RSS after the start-up collection) a quiet port must be for a
 * collection to be worth its CPU: less than what a load leaves (idle 83 MiB, 127–152 after the
 * throughput bench's load when no collection ran) or an audit ingest (+170 MiB after a million webhook
 * events). A collection makes V8 optimise the request path again, which costs the next burst's first
 * second (docs/decisions.md, "One collection when the port goes quiet").
 */
export const GROWTH_WORTH_COLLECTING = 48 * 1024 * 1024;

/**
 * And how much it must have grown since the last collection: a port whose live memory grew (a larger
 * cluster, a recording's caches) stays above the first line, and collecting again every quiet spell
 * would give nothing back.
 */
export const GROWTH_SINCE_LAST = 16 * 1024 * 1024;

/** Event-loop utilisation under which a tick counts as quiet: timers and a quiet watch's events stay below it. */
const QUIET_UTILISATION = 0.02;

let running: { users: number; stop(): void } | undefined;

/** The quiet spell's length from `PEERSCOPE_QUIET_COLLECTION_MS` (0: never collect), else `fallback`. */
export function quietMsFrom(env: NodeJS.ProcessEnv, fallback: number): number {
  const raw = env.PEERSCOPE_QUIET_COLLECTION_MS;
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`PEERSCOPE_QUIET_COLLECTION_MS: "${raw}" is not a whole number of ms`);
  return ms;
}

/** What a quiet tick knows: RSS now, at rest (after the first collection) and the least since the last one. */
export interface QuietState {
  readonly collected: boolean;
  readonly rss: number;
  readonly resting: number;
  readonly least: number;
  readonly growth: number;
  readonly sinceLast: number;
}

/** Whether a quiet port collects now: the first time always, then well above its size at rest and grown since. */
export function worthCollecting(s: QuietState): boolean {
  return !s.collected || (s.rss > s.resting + s.growth && s.rss > s.least + s.sinceLast);
}

/**
 * Starts watching for quiet spells (once per process; each call adds a user, and the returned stop
 * removes it). The timer never keeps the process alive.
 */
export function collectWhenQuiet(options: QuietCollectionOptions = {}): () => void {
  if (running) {
    running.users++;
  } else {
    const quietMs = options.quietMs ?? quietMsFrom(process.env, 5_000);
    const gc = quietMs > 0 ? collector() : undefined;
    if (!gc) return () => undefined;
    const growth = options.growthBytes ?? GROWTH_WORTH_COLLECTING;
    const sinceLast = options.sinceLastBytes ?? GROWTH_SINCE_LAST;
    // RSS after the start-up collection (the port at rest), and the least since the last collection.
    let resting = Infinity;
    let least = process.memoryUsage.rss();
    let quietSince = performance.now();
    // The first quiet spell always collects: start-up's garbage (discovery documents read and checked)
    // and the young generation it grew, before any request path was optimised (idle 118 → 102 MiB).
    let collected = false;
    let last = performance.eventLoopUtilization();
    const timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, last).utilization >= QUIET_UTILISATION;
      last = now;
      const at = performance.now();
      const rss = process.memoryUsage.rss();
      if (busy) quietSince = at;
      else if (at - quietSince >= quietMs && worthCollecting({ collected, rss, resting, least, growth, sinceLast })) {
        gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
        least = process.memoryUsage.rss();
        if (!collected) resting = least;
        collected = true;
        // The collection itself made this tick busy: the next one waits for another quiet spell.
        last = performance.eventLoopUtilization();
        quietSince = performance.now();
      } else least = Math.min(least, rss);
    }, options.tickMs ?? 1_000);
    timer.unref();
    running = { users: 1, stop: () => clearInterval(timer) };
  }
  let stopped = false;
  return () => {
    if (stopped || !running) return;
    stopped = true;
    if (--running.users === 0) {
      running.stop();
      running = undefined;
    }
  };
}
