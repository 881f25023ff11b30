// Replay: a window of the session's recording played back into the Live routing screen at 1×, 10× or
// 60×. The recorded events are fetched ahead in bounded pages (getRecordedEvents) and pushed, as the
// core pushes live batches, into a port feed and a cluster feed of the screen's own kind (event-feed.ts),
// so the same table, chart and tallies draw them. Timing follows the recorded times scaled by the
// speed; each animation frame delivers what became due as one batch per recorded second, and the feeds
// tell the screen at most every NOTIFY_MS — never a state update per event, however busy the recording —
// and at once when the replay pauses or ends, so a still screen shows every event up to its clock.
import {
  clusterOutcomes,
  routeOutcomes,
  type ClusterEvent,
  type CoreClient,
  type CoreEvent,
  type RecordedCursor,
  type RecordedEventsPage,
  type RoutingEvent,
} from '../../../proxy-core/contract/index.js';
import type { ClusterFeed } from './cluster-feed.js';
import { RecordedFeeds } from './recorded-feeds.js';
import type { RoutingFeed } from './routing-feed.js';

export const REPLAY_SPEEDS = [1, 10, 60] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** Events per page: a busy cluster's second; a replay holds at most two pages ahead of its clock. */
export const REPLAY_PAGE = 5_000;

export interface ReplayWindow {
  /** Epoch ms; `to` exclusive. */
  readonly from: number;
  readonly to: number;
}

export interface ReplayState {
  readonly status: 'playing' | 'paused' | 'ended' | 'error';
  readonly window: ReplayWindow;
  readonly speed: ReplaySpeed;
  /** The recorded time being played (epoch ms). */
  readonly clock: number;
  /** The clock waits for the next page (the recording reads slower than the speed asks). */
  readonly waiting: boolean;
  /** Events played so far, and whether any came from the cluster source. */
  readonly played: number;
  readonly cluster: boolean;
  readonly error?: string;
}

/** Runs `callback` at the next frame; returns the cancel function. Tests pass timers. */
export type FrameScheduler = (callback: () => void) => () => void;

const animationFrame: FrameScheduler = (callback) => {
  if (typeof requestAnimationFrame === 'function') {
    const id = requestAnimationFrame(() => callback());
    return () => cancelAnimationFrame(id);
  }
  const id = setTimeout(callback, 16);
  return () => clearTimeout(id);
};

export type Played = { readonly port: true; readonly event: RoutingEvent } | { readonly port: false; readonly event: ClusterEvent };

/** The page's two lists as one, oldest first (each is already). */
export function merged(page: RecordedEventsPage): Played[] {
  const out: Played[] = [];
  let i = 0;
  let j = 0;
  while (i < page.port.length || j < page.cluster.length) {
    const p = page.port[i];
    const c = page.cluster[j];
    if (p && (!c || p.at <= c.at)) out.push({ port: true, event: page.port[i++]! });
    else out.push({ port: false, event: page.cluster[j++]! });
  }
  return out;
}

/**
 * Recorded events (oldest first) as the core pushes live ones: one batch per source and recorded
 * second, each with the recorded time the feeds bucket its rates by. `seq` numbers each source's
 * events on from where it stands (the recording's row ids are in the order written, not in time).
 */
export function* recordedBatches(
  played: readonly Played[],
  seq: { port: number; cluster: number },
): Generator<{ readonly at: number; readonly event: CoreEvent }> {
  let start = 0;
  while (start < played.length) {
    const second = Math.floor(played[start]!.event.at / 1000);
    let end = start;
    while (end < played.length && Math.floor(played[end]!.event.at / 1000) === second) end++;
    const slice = played.slice(start, end);
    const at = slice.at(-1)!.event.at;
    const port = slice.flatMap((p) => (p.port ? [{ ...p.event, seq: ++seq.port }] : []));
    const cluster = slice.flatMap((p) => (p.port ? [] : [{ ...p.event, seq: ++seq.cluster }]));
    if (port.length) yield { at, event: routingBatch(port, seq.port) };
    if (cluster.length) yield { at, event: clusterBatch(cluster, seq.cluster) };
    start = end;
  }
}

function routingBatch(events: RoutingEvent[], lastSeq: number): CoreEvent {
  const counts = Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as Record<(typeof routeOutcomes)[number], number>;
  for (const e of events) counts[e.outcome]++;
  return { type: 'routing', events, counts, count: events.length, windowMs: 1_000, lastSeq };
}

function clusterBatch(events: ClusterEvent[], lastSeq: number): CoreEvent {
  const counts = Object.fromEntries(clusterOutcomes.map((o) => [o, 0])) as Record<(typeof clusterOutcomes)[number], number>;
  for (const e of events) counts[e.outcome]++;
  return { type: 'cluster', events, counts, count: events.length, windowMs: 1_000, lastSeq };
}

export class Replay {
  readonly port: RoutingFeed;
  readonly cluster: ClusterFeed;
  private readonly feeds: RecordedFeeds;
  private state: ReplayState;
  private readonly listeners = new Set<() => void>();
  /** Fetched events not yet played, oldest first, and the time before which the recording has been read whole. */
  private queue: Played[] = [];
  private horizon: number;
  private next: RecordedCursor | undefined;
  private more = true;
  private fetching = false;
  private anchor = { wall: 0, clock: 0 };
  private cancelFrame: (() => void) | undefined;
  private seq = { port: 0, cluster: 0 };
  private closed = false;

  constructor(
    private readonly client: Pick<CoreClient, 'getRecordedEvents'>,
    window: ReplayWindow,
    speed: ReplaySpeed,
    private readonly options: { frame?: FrameScheduler; now?: () => number; pageSize?: number } = {},
  ) {
    this.state = { status: 'paused', window, speed, clock: window.from, waiting: false, played: 0, cluster: false };
    this.horizon = window.from;
    this.feeds = new RecordedFeeds(window.from);
    this.port = this.feeds.port;
    this.cluster = this.feeds.cluster;
  }

  getState = (): ReplayState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  play(): void {
    if (this.closed || this.state.status === 'playing' || this.state.status === 'ended') return;
    this.anchor = { wall: this.now(), clock: this.state.clock };
    this.set({ status: 'playing' });
    this.fetchAhead();
    this.schedule();
  }

  pause(): void {
    if (this.state.status !== 'playing') return;
    this.tick();
    this.cancelFrame?.();
    this.cancelFrame = undefined;
    this.feeds.flush();
    this.set({ status: 'paused', waiting: false });
  }

  setSpeed(speed: ReplaySpeed): void {
    if (this.state.status === 'playing') this.tick();
    this.anchor = { wall: this.now(), clock: this.state.clock };
    this.set({ speed });
  }

  /** Stops for good: the feeds stop and no page is fetched after. */
  close(): void {
    this.closed = true;
    this.cancelFrame?.();
    this.feeds.close();
    this.listeners.clear();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private schedule(): void {
    this.cancelFrame = (this.options.frame ?? animationFrame)(() => {
      this.cancelFrame = undefined;
      if (this.closed || this.state.status !== 'playing') return;
      this.tick();
      if (this.state.status === 'playing') this.schedule();
    });
  }

  /** Moves the clock to the scaled wall time (held at what has been read) and plays what became due. */
  private tick(): void {
    const { window, speed } = this.state;
    const wanted = Math.min(window.to, this.anchor.clock + (this.now() - this.anchor.wall) * speed);
    const clock = Math.max(this.state.clock, Math.min(wanted, this.horizon));
    const waiting = wanted > this.horizon;
    // Held back by a page still on its way: the clock resumes from where it waited, not with a jump.
    if (waiting) this.anchor = { wall: this.now(), clock };
    let due = 0;
    while (due < this.queue.length && this.queue[due]!.event.at < clock) due++;
    const played = this.queue.splice(0, due);
    this.deliver(played);
    const ended = !this.more && this.queue.length === 0 && clock >= window.to;
    this.set({
      clock,
      waiting: waiting && !ended,
      played: this.state.played + played.length,
      cluster: this.state.cluster || played.some((p) => !p.port),
      ...(ended ? { status: 'ended' as const } : {}),
    });
    if (ended) this.feeds.flush();
    this.fetchAhead();
  }

  /** The played events as the core pushes them: one batch per source and recorded second. */
  private deliver(played: readonly Played[]): void {
    for (const batch of recordedBatches(played, this.seq)) this.feeds.push(batch.at, batch.event);
  }

  /** Keeps about a page ahead of the clock: one request at a time, never more than two pages held. */
  private fetchAhead(): void {
    const size = this.options.pageSize ?? REPLAY_PAGE;
    if (this.closed || this.fetching || !this.more || this.queue.length >= size) return;
    this.fetching = true;
    const { from, to } = this.state.window;
    this.client
      .getRecordedEvents({ from, to, limit: size, ...(this.next ? { after: this.next } : {}) })
      .then((page) => {
        this.fetching = false;
        if (this.closed) return;
        this.queue.push(...merged(page));
        this.horizon = Math.max(this.horizon, page.through);
        this.next = page.next ?? undefined;
        this.more = page.next !== null;
        this.fetchAhead();
      })
      .catch((err: unknown) => {
        this.fetching = false;
        if (this.closed) return;
        this.cancelFrame?.();
        this.set({ status: 'error', error: (err as Error).message });
      });
  }

  private set(patch: Partial<ReplayState>): void {
    const changed = (Object.keys(patch) as (keyof ReplayState)[]).some((k) => patch[k] !== this.state[k]);
    if (!changed) return;
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }
}
