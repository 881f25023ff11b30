// The rows of the request stream, from either source: a request through the port (its routing event)
// or a request an apiserver answered (its cluster event, from the audit log). One shape, so one table,
// filter and chart serve the port, the cluster and both together.
import type { ClusterEvent, RoutingEvent, TrafficSource } from '../../../proxy-core/contract/index.js';
import type { ShownOutcome } from '../../shared/ui/format.js';
import { emptyPoint, RATE_SECONDS, type RatePoint } from './event-feed.js';

/** Which requests the stream shows: one source, or both together. */
export type SourceChoice = TrafficSource | 'both';

export interface StreamRow {
  readonly source: TrafficSource;
  readonly seq: number;
  readonly at: number;
  readonly userAgent: string;
  /** The port's HTTP method; the verb an apiserver logged. */
  readonly method: string;
  readonly path: string;
  /** The server a load balancer handed the request to (for the cluster: the server that logged it); identities, as are answeredBy's. */
  readonly handling: string | null;
  readonly outcome: ShownOutcome;
  /** Who produced the answer, as the table says it. */
  readonly answeredBy: string;
  /** The outcome as the table's pill says it. */
  readonly outcomeText: string;
  readonly status: number | null;
  readonly latencyMs: number;
}

/** `nameOf` gives the name a person reads for a server (its host name) in the pill of a reroute. */
export function portRow(
  e: RoutingEvent,
  outcomeLabel: (o: ShownOutcome) => string,
  nameOf: (server: string) => string = (server) => server,
): StreamRow {
  return {
    source: 'port',
    seq: e.seq,
    at: e.at,
    userAgent: e.userAgent,
    method: e.method,
    path: e.path,
    handling: e.handling,
    outcome: e.outcome,
    answeredBy: e.answeredBy ?? 'peerscope',
    outcomeText: e.outcome === 'rerouted' && e.answeredBy ? `→ ${nameOf(e.answeredBy)}` : outcomeLabel(e.outcome),
    status: e.status,
    latencyMs: e.latencyMs,
  };
}

export function clusterRow(e: ClusterEvent, outcomeLabel: (o: ShownOutcome) => string): StreamRow {
  return {
    source: 'cluster',
    seq: e.seq,
    at: e.at,
    userAgent: e.userAgent,
    method: e.verb,
    path: e.path,
    handling: e.server,
    outcome: e.outcome,
    // The server's own Mixed Version Proxy sent it on; its audit event does not say to whom.
    answeredBy: e.outcome === 'rerouted' ? 'a peer' : e.server,
    outcomeText: outcomeLabel(e.outcome),
    status: e.code,
    latencyMs: e.latencyMs,
  };
}

/** Two newest-first lists as one, newest first, at most `max` rows. */
export function mergeNewestFirst(a: readonly StreamRow[], b: readonly StreamRow[], max: number): StreamRow[] {
  const out: StreamRow[] = [];
  let i = 0;
  let j = 0;
  while (out.length < max && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.at >= y.at)) {
      out.push(x!);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** Two rate series added second by second (each oldest first, gaps already filled). */
export function sumSeries(a: readonly RatePoint[], b: readonly RatePoint[]): RatePoint[] {
  if (a.length === 0) return [...b];
  if (b.length === 0) return [...a];
  const byT = new Map<number, RatePoint>();
  for (const p of [...a, ...b]) {
    const sum = byT.get(p.t) ?? emptyPoint(p.t);
    for (const [k, v] of Object.entries(p))
      if (k !== 't') (sum as Record<string, number>)[k] = ((sum as Record<string, number>)[k] ?? 0) + v;
    byT.set(p.t, sum);
  }
  const first = Math.min(a[0]!.t, b[0]!.t);
  const last = Math.max(a.at(-1)!.t, b.at(-1)!.t);
  return Array.from({ length: last - first + 1 }, (_, i) => byT.get(first + i) ?? emptyPoint(first + i)).slice(-RATE_SECONDS);
}
