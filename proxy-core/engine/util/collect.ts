// V8's full collection of the kind it runs under memory pressure ("last resort": it also shrinks the
// young generation and returns empty pages), for the two places that know better than V8 when garbage
// is worth collecting: a port gone quiet (quiet-collection.ts) and a long synchronous write that makes
// large short-lived objects (a recording's Parquet export: GrowthLimit).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's `gc`, without `--expose-gc` on the command line (the desktop app's main process has none). */
export function collector(): Collect | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Collects when RSS has grown `growth` bytes since it was made, checked at points the caller chooses
 * (after each Parquet row group). A loop that never yields gives V8 no idle time to collect: it lets
 * the old generation grow instead, so the process's peak grew with the recording's length. After a
 * collection the limit is what is left plus half the growth, so memory that stays live (caches a
 * long run fills) does not make every check collect.
 */
export class GrowthLimit {
  private readonly gc = collector();
  private limit: number;
  /** Collections run so far. */
  collections = 0;

  constructor(private readonly growth: number) {
    this.limit = process.memoryUsage.rss() + growth;
  }

  check(): void {
    if (!this.gc || process.memoryUsage.rss() <= this.limit) return;
    this.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    this.collections++;
    this.limit = Math.max(this.limit, process.memoryUsage.rss() + this.growth / 2);
  }
}
