// The cluster source's telemetry: the requests the apiservers themselves answered, as their followed
// audit logs tell them, kept beside the port's own (telemetry.ts) and never mixed into its counters.
// Bounded: the newest events in a ring, and an hour of per-minute counts per server.
import type { AuditDeprecatedCall } from '../../contract/audit.js';
import {
  clusterSources,
  emptyClusterTotals,
  type ClusterEvent,
  type ClusterGvrRates,
  type ClusterMinute,
  type ClusterSource,
  type ClusterSummary,
  type ClusterTotals,
} from '../../contract/cluster.js';
import { ErrorSeries } from './error-series.js';
import { RingBuffer } from './ring-buffer.js';

const MINUTE_MS = 60_000;
const MINUTES_KEPT = 60;
/** The per-GVR window slides in steps this long: a minute is its last twelve. */
const STEP_MS = 5_000;

type GvrCounts = { requests: number; false404s: number };

type Listener = (e: ClusterEvent) => void;

/** The deprecated-API calls of the cluster source: kept by the audit reader, which sees the records. */
export interface DeprecatedCallsView {
  list(): AuditDeprecatedCall[];
}

export class ClusterTraffic {
  private readonly ring: RingBuffer<ClusterEvent>;
  private readonly counts = emptyClusterTotals();
  // One counter per bucket serves requests, errors and false 404s alike.
  private readonly requestMinutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly errorMinutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly false404Minutes = new ErrorSeries(MINUTE_MS, MINUTES_KEPT);
  private readonly listeners = new Set<Listener>();
  private seq = 0;
  /** Step start → "server\0group\0version\0resource" → counts; only the last minute's steps are kept. */
  private readonly gvrSteps = new Map<number, Map<string, GvrCounts>>();
  private firstAt: number | undefined;
  /** Only the sources read: one not read has no count (not 0). */
  private readonly bySource: Partial<Record<ClusterSource, number>>;
  private deprecated: DeprecatedCallsView | undefined;

  /** `servers`: those whose audit logs are followed. */
  /** `sources`: the sources read (audit log files, the webhook). */
  constructor(
    readonly servers: readonly string[],
    capacity = 10_000,
    readonly sources: readonly ClusterSource[] = clusterSources,
  ) {
    this.ring = new RingBuffer(capacity);
    this.bySource = Object.fromEntries(sources.map((s) => [s, 0]));
  }

  record(event: Omit<ClusterEvent, 'seq'>): ClusterEvent {
    const e: ClusterEvent = { seq: ++this.seq, ...event };
    this.ring.push(e);
    this.counts[e.outcome]++;
    if (e.via) this.bySource[e.via] = (this.bySource[e.via] ?? 0) + 1;
    // By when the request ended, as the log is written: a watch received long ago counts in its last minute.
    const ended = e.at + e.latencyMs;
    this.requestMinutes.add(e.server, ended);
    if (e.code !== null && e.code >= 500) this.errorMinutes.add(e.server, ended);
    if (e.outcome === 'false-404') this.false404Minutes.add(e.server, ended);
    if (e.resource) this.countGvr(e, ended);
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

  /** What getOverview() carries of the cluster source. */
  summary(): ClusterSummary {
    const deprecatedCalls = this.deprecated?.list() ?? [];
    return {
      servers: [...this.servers],
      totals: this.totals(),
      lastSeq: this.seq,
      bySource: { ...this.bySource },
      ...(deprecatedCalls.length > 0 ? { deprecatedCalls } : {}),
    };
  }

  setDeprecatedCalls(view: DeprecatedCallsView): void {
    this.deprecated = view;
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

  /** What each server answered per GVR in the last minute (by when each request ended), and how many seconds that covers. */
  gvrRates(now: number): ClusterGvrRates {
    const since = now - MINUTE_MS;
    const totals = new Map<string, GvrCounts>();
    for (const [start, counts] of this.gvrSteps) {
      if (start + STEP_MS <= since) continue;
      for (const [key, c] of counts) {
        const t = totals.get(key) ?? { requests: 0, false404s: 0 };
        t.requests += c.requests;
        t.false404s += c.false404s;
        totals.set(key, t);
      }
    }
    const seconds = this.firstAt === undefined ? 0 : Math.min(60, Math.max(1, (now - this.firstAt) / 1000));
    return {
      seconds,
      cells: [...totals].map(([key, c]) => {
        const [server, group, version, resource] = key.split('\0') as [string, string, string, string];
        return { server, group, version, resource, ...c };
      }),
    };
  }

  private countGvr(e: ClusterEvent, ended: number): void {
    this.firstAt ??= ended;
    const start = ended - (ended % STEP_MS);
    let step = this.gvrSteps.get(start);
    if (!step) {
      this.gvrSteps.set(start, (step = new Map()));
      // Steps older than a minute are never read again.
      for (const old of this.gvrSteps.keys()) if (old + STEP_MS + MINUTE_MS <= start) this.gvrSteps.delete(old);
    }
    const key = `${e.server}\0${e.group}\0${e.version}\0${e.resource}`;
    const c = step.get(key) ?? { requests: 0, false404s: 0 };
    c.requests++;
    if (e.outcome === 'false-404') c.false404s++;
    step.set(key, c);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
