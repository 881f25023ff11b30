// The per-minute rollups: events counted per minute × series (and their latency summed, for means),
// held in memory between flushes and added to the file's counts at each flush.
const MINUTE_MS = 60_000;
/** More series than this in one recording would collide in the numeric key; a recording has far fewer. */
const MAX_SERIES = 10_000_000;

export interface MinuteDelta {
  readonly minute: number;
  readonly series: number;
  readonly count: number;
  readonly latency: number;
}

export class MinuteCounts {
  private readonly deltas = new Map<number, { count: number; latency: number }>();

  add(at: number, series: number, latencyMs: number): void {
    const key = Math.floor(at / MINUTE_MS) * MAX_SERIES + series;
    const d = this.deltas.get(key);
    if (d) {
      d.count++;
      d.latency += latencyMs;
    } else this.deltas.set(key, { count: 1, latency: latencyMs });
  }

  /** What was counted since the last call. */
  take(): MinuteDelta[] {
    const out: MinuteDelta[] = [];
    for (const [key, d] of this.deltas) {
      const minute = Math.floor(key / MAX_SERIES);
      out.push({ minute, series: key - minute * MAX_SERIES, count: d.count, latency: d.latency });
    }
    this.deltas.clear();
    return out;
  }
}
