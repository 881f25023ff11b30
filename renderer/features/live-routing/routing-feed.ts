// The routing events the page keeps: a bounded buffer (newest first) and the per-second rate by
// outcome. It lives as long as the app, not the Live routing screen, so switching screens during a
// rollout loses neither the stream nor the chart's history.
import { createContext } from 'react';
import { routeOutcomes, type CoreClient, type RouteOutcome, type RoutingEvent } from '../../../proxy-core/contract/index.js';

/** Events kept; older ones fall off. */
export const MAX_ROWS = 2_000;
/** Seconds of rate history in the chart. */
export const RATE_SECONDS = 120;
/** Recent events asked for when the feed starts. */
const SEED_EVENTS = 500;
/**
 * Screens hear of routing batches at most this often. The core sends up to ten a second; every
 * redraw of the stream moves all its rows (a full repaint of the table), and nobody reads a table that
 * scrolls faster than this. The state itself is always current.
 */
export const NOTIFY_MS = 250;

export type RatePoint = { t: number } & Record<RouteOutcome, number>;

export interface FeedState {
  readonly status: 'loading' | 'ready' | 'error';
  readonly error?: string;
  /** Newest first, at most MAX_ROWS. */
  readonly rows: readonly RoutingEvent[];
  readonly series: readonly RatePoint[];
  /** Seq of the newest event seen. */
  readonly lastSeq: number;
}

function emptyPoint(t: number): RatePoint {
  return { t, ...(Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as Record<RouteOutcome, number>) };
}

/** Adds a batch's counts to the bucket of the second it arrived in; keeps RATE_SECONDS buckets. */
export function addToSeries(series: readonly RatePoint[], at: number, counts: Record<RouteOutcome, number>): RatePoint[] {
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
  for (const o of routeOutcomes) last[o] += counts[o];
  return out.slice(-RATE_SECONDS);
}

export class RoutingFeed {
  private state: FeedState = { status: 'loading', rows: [], series: [], lastSeq: 0 };
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: CoreClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Subscribes to the core and loads recent events; returns the stop function. */
  start(): () => void {
    const unsubscribe = this.client.subscribe((event) => {
      if (event.type === 'session') {
        // Another cluster: its events have their own sequence; the old rows and rates mean nothing there.
        this.state = { status: 'loading', rows: [], series: [], lastSeq: 0 };
        void this.load();
        return;
      }
      if (event.type !== 'routing') return;
      const fresh = event.events.filter((e) => e.seq > this.state.lastSeq).reverse();
      this.set(
        {
          series: addToSeries(this.state.series, this.now(), event.counts),
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
      const page = await this.client.getEvents({ limit: SEED_EVENTS });
      // Events the stream already brought are newer; keep them in front.
      const older = page.events.filter((e) => e.seq <= (this.state.rows.at(-1)?.seq ?? Infinity)).reverse();
      const seen = new Set(this.state.rows.map((e) => e.seq));
      const rows = [...this.state.rows, ...older.filter((e) => !seen.has(e.seq))].slice(0, MAX_ROWS);
      this.set({ status: 'ready', error: undefined, rows, lastSeq: Math.max(this.state.lastSeq, rows[0]?.seq ?? 0) });
    } catch (err) {
      this.set({ status: 'error', error: (err as Error).message });
    }
  }

  getState = (): FeedState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private notifyTimer: ReturnType<typeof setTimeout> | undefined;
  private lastNotify = 0;

  /** `throttled`: a routing batch, told to listeners at most every NOTIFY_MS (the first at once). */
  private set(patch: Partial<FeedState>, throttled = false): void {
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

/** The app's feed; the Live routing screen makes its own when rendered alone (tests). */
export const RoutingFeedContext = createContext<RoutingFeed | null>(null);
