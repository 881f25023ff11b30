// One batch window of pushed events (the port's routing events, the cluster source's events): exact
// counts by outcome, and at most the newest `maxEvents` events, trimmed in chunks so memory stays
// bounded however many arrive in a window.
export interface Batch<E, O extends string> {
  readonly events: E[];
  readonly counts: Record<O, number>;
  readonly count: number;
  readonly windowMs: number;
}

export class EventBatch<E extends { readonly outcome: O }, O extends string> {
  private pending: E[] = [];
  private counts: Record<O, number>;
  private count = 0;
  private windowStart = Date.now();

  constructor(
    private readonly emptyCounts: () => Record<O, number>,
    private readonly maxEvents: number,
  ) {
    this.counts = emptyCounts();
  }

  add(e: E): void {
    this.count++;
    this.counts[e.outcome]++;
    this.pending.push(e);
    if (this.pending.length > this.maxEvents * 2) this.pending = this.pending.slice(-this.maxEvents);
  }

  /** The window's batch (undefined when nothing came), and a fresh window from `now`. */
  take(now: number): Batch<E, O> | undefined {
    const batch =
      this.count > 0
        ? {
            events: this.pending.length > this.maxEvents ? this.pending.slice(-this.maxEvents) : this.pending,
            counts: this.counts,
            count: this.count,
            windowMs: now - this.windowStart,
          }
        : undefined;
    this.restart(now);
    return batch;
  }

  /** Drops what the window gathered: events recorded while nobody listened are not a window's worth. */
  restart(now: number): void {
    this.pending = [];
    this.counts = this.emptyCounts();
    this.count = 0;
    this.windowStart = now;
  }
}
