// The cluster source's telemetry: the requests the apiservers themselves answered, as their followed
// audit logs tell them, kept beside the port's own (telemetry.ts) and never mixed into its counters.
// Bounded: the newest events in a ring, and an hour of per-minute counts per server.
import { emptyClusterTotals, type ClusterEvent, type ClusterMinute, type ClusterTotals } from '../../contract/cluster.js';
import { ErrorSeries } from './error-series.js';
import { RingBuffer } from './ring-buffer.js';

const MINUTE_MS = 60_000;
const MINUTES_KEPT = 60;

type Listener = (e: ClusterEvent) => void;

export class ClusterTraffic {
  private readonly ring: RingBuffer<ClusterEvent>;
  private readonly counts = emptyClusterTotals();
  // One counter per bucket serves requests, errors and false 404s alike.
  private readonly requestMinutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly errorMinutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly false404Minutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly listeners = new Set<Listener>();
  private seq = 0;

  /** `servers`: those whose audit logs are followed. */
  constructor(
    readonly servers: readonly string[],
    capacity = 10_000,
  ) {
    this.ring = new RingBuffer(capacity);
  }

  record(event: Omit<ClusterEvent, 'seq'>): ClusterEvent {
    const e: ClusterEvent = { seq: ++this.seq, ...event };
    this.ring.push(e);
    this.counts[e.outcome]++;
    // By when the request ended, as the log is written: a watch received long ago counts in its last minute.
    const ended = e.at + e.latencyMs;
    this.requestMinutes.add(e.server, ended);
    if (e.code !== null && e.code >= 500) this.errorMinutes.add(e.server, ended);
    if (e.outcome === 'false-404') this.false404Minutes.add(e.server, ended);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken subscriber must not stop the count.
      }
    }
    return e;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Oldest first. */
  recent(): ClusterEvent[] {
    return this.ring.recent();
  }

  totals(): ClusterTotals {
    return { ...this.counts };
  }

  /** The minutes in which `server` answered anything, oldest first. */
  minutes(server: string): ClusterMinute[] {
    const errors = new Map(this.errorMinutes.of(server).map((b) => [b.at, b.count]));
    const false404s = new Map(this.false404Minutes.of(server).map((b) => [b.at, b.count]));
    return this.requestMinutes.of(server).map((b) => ({
      at: b.at,
      requests: b.count,
      errors: errors.get(b.at) ?? 0,
      false404s: false404s.get(b.at) ?? 0,
    }));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
