// The events the page keeps of one source (the port's routing events, or the cluster's from the
// apiservers' audit logs): a bounded buffer (newest first) and the per-second rate by outcome. A feed
// lives as long as the app, not the Live routing screen, so switching screens during a rollout loses
// neither the stream nor the chart's history.
import type { ClusterOutcome, CoreClient, CoreEvent, RouteOutcome } from '../../../proxy-core/contract/index.js';
import { shownOutcomes, type ShownOutcome } from '../../shared/ui/format.js';

/** Events kept; older ones fall off. */
export const MAX_ROWS = 2_000;
/** Seconds of rate history in the chart. */
export const RATE_SECONDS = 120;
/** Recent events asked for when the feed starts. */
const SEED_EVENTS = 500;
/**
 * Screens hear of batches at most this often. The core sends up to ten a second; every redraw of the
 * stream moves all its rows (a full repaint of the table), and nobody reads a table that scrolls
 * faster than this. The state itself is always current.
 */
export const NOTIFY_MS = 250;

/** Requests in one second by outcome: every port outcome, and the cluster's own where a cluster source counted them. */
export type RatePoint = { t: number } & Record<RouteOutcome, number> & Partial<Record<Exclude<ClusterOutcome, RouteOutcome>, number>>;

export type OutcomeCounts = Partial<Record<ShownOutcome, number>>;

export interface FeedState<E> {
  readonly status: 'loading' | 'ready' | 'error';
  readonly error?: string;
  /** Newest first, at most MAX_ROWS. */
  readonly rows: readonly E[];
  readonly series: readonly RatePoint[];
  /** Seq of the newest event seen. */
  readonly lastSeq: number;
}

/** What a feed asks of the core: its pushed events and recent events; a replay (replay.ts) answers the same. */
export type FeedClient = Pick<CoreClient, 'subscribe' | 'getEvents' | 'getClusterEvents'>;

/** How a feed reads its source: its pushed batches, and its recent events when it starts. */
export interface FeedSource<E> {
  batchOf(event: CoreEvent): { readonly events: readonly E[]; readonly counts: OutcomeCounts } | undefined;
  load(client: FeedClient, limit: number): Promise<readonly E[]>;
}

export function emptyPoint(t: number): RatePoint {
  return { t, ...(Object.fromEntries(shownOutcomes.map((o) => [o, 0])) as Record<ShownOutcome, number>) };
}

/** Adds a batch's counts to the bucket of the second it arrived in; keeps RATE_SECONDS buckets. */
export function addToSeries(series: readonly RatePoint[], at: number, counts: OutcomeCounts): RatePoint[] {
  const second = Math.floor(at / 1000);
  const out = series.filter((p) => p.t > second - RATE_SECONDS);
  let last = out.at(-1);
  if (!last || last.t !== second) {
    // Seconds without a batch had no requests: fill them so the chart shows the gap as zero.
    for (let t = last ? last.t + 1 : second; t < second; t++) out.push(emptyPoint(t));
    last = emptyPoint(second);
    out.push(last);
  } else {
    last = { ...last };
    out[out.length - 1] = last;
  }
  for (const o of shownOutcomes) last[o] = (last[o] ?? 0) + (counts[o] ?? 0);
  return out.slice(-RATE_SECONDS);
}

export class EventFeed<E extends { readonly seq: number }> {
  private state: FeedState<E> = { status: 'loading', rows: [], series: [], lastSeq: 0 };
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: FeedClient,
    private readonly source: FeedSource<E>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Subscribes to the core and loads recent events; returns the stop function. */
  start(): () => void {
    const unsubscribe = this.client.subscribe((event) => {
      if (event.type === 'session') {
        // Another cluster: its events have their own sequence; the old rows and rates mean nothing there.
        this.state = { status: 'loading', rows: [], series: [], lastSeq: 0 };
        this.restart();
        void this.load();
        return;
      }
      const batch = this.source.batchOf(event);
      if (!batch) return;
      const fresh = batch.events.filter((e) => e.seq > this.state.lastSeq).reverse();
      this.seen(fresh, { counts: batch.counts, events: batch.events });
      this.set(
        {
          series: addToSeries(this.state.series, this.now(), batch.counts),
          ...(fresh.length ? { rows: [...fresh, ...this.state.rows].slice(0, MAX_ROWS), lastSeq: fresh[0]!.seq } : {}),
        },
        true,
      );
    });
    void this.load();
    return () => {
      unsubscribe();
      clearTimeout(this.notifyTimer);
      this.notifyTimer = undefined;
    };
  }

  async load(): Promise<void> {
    this.set({ status: 'loading' });
    try {
      const events = await this.source.load(this.client, SEED_EVENTS);
      // Events the stream already brought are newer; keep them in front.
      const older = events.filter((e) => e.seq <= (this.state.rows.at(-1)?.seq ?? Infinity)).reverse();
      const seen = new Set(this.state.rows.map((e) => e.seq));
      const added = older.filter((e) => !seen.has(e.seq));
      this.seen(added, undefined);
      const rows = [...this.state.rows, ...added].slice(0, MAX_ROWS);
      this.set({ status: 'ready', error: undefined, rows, lastSeq: Math.max(this.state.lastSeq, rows[0]?.seq ?? 0) });
    } catch (err) {
      this.set({ status: 'error', error: (err as Error).message });
    }
  }

  getState = (): FeedState<E> => this.state;

  /**
   * Every event the feed takes in, once each (a batch's new ones, then the older ones its start
   * loaded); with the whole batch, whose counts may count more than its events when the core trimmed
   * them. For a feed that keeps a tally of its own beyond the bounded rows.
   */
  protected seen(_events: readonly E[], _batch: { readonly counts: OutcomeCounts; readonly events: readonly E[] } | undefined): void {}

  /** Another session began: a tally of the previous one's events starts over. */
  protected restart(): void {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private notifyTimer: ReturnType<typeof setTimeout> | undefined;
  private lastNotify = 0;

  /** Tells the listeners now what a throttled batch has not told them yet (a replay that paused or ended). */
  flush(): void {
    if (this.notifyTimer !== undefined) this.notify(true);
  }

  /** `throttled`: a batch, told to listeners at most every NOTIFY_MS (the first at once). */
  private set(patch: Partial<FeedState<E>>, throttled = false): void {
    this.state = { ...this.state, ...patch };
    if (!throttled) return this.notify();
    if (this.notifyTimer !== undefined) return;
    const wait = this.lastNotify + NOTIFY_MS - Date.now();
    if (wait <= 0) this.notify(true);
    else this.notifyTimer = setTimeout(() => this.notify(true), wait);
  }

  private notify(batch = false): void {
    clearTimeout(this.notifyTimer);
    this.notifyTimer = undefined;
    if (batch) this.lastNotify = Date.now();
    for (const l of this.listeners) l();
  }
}
