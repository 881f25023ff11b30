// One request's passage through the port: what the steps learn about it (its path, class, handling
// server, decision) and what it left behind (status, bytes, error), recorded as one routing event
// and told on every answer as X-Peerscope-Route (rule P3, below with the other headers the port adds).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RouteOutcome } from '../../contract/events.js';
import type { Decision } from '../routing/decide.js';
import type { RequestInfo } from '../routing/request-info.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** A decision the port acts on: `unavailable` is answered as a 503 by the settle step. */
export type Routed = Exclude<Decision, { outcome: 'unavailable' }>;

/** An exchange whose connection is `res` for a plain request, `socket` and `head` for an upgrade. */
interface ExchangeOf<Res extends ServerResponse | undefined, Socket extends Duplex | undefined, Head extends Buffer | undefined> {
  readonly req: IncomingMessage;
  readonly res: Res;
  readonly socket: Socket;
  readonly head: Head;
  readonly at: number;
  readonly started: number;
  readonly method: string;
  readonly rawUrl: string;
  /** The request target's path as sent (forwarded so) and its query. */
  readonly path: string;
  readonly query: string;
  // Filled in by the steps (steps/step.ts, Filled): a step that reads one says so in its type.
  /** The path percent-decoded, as kube-apiserver routes it. */
  decoded: string | undefined;
  info: RequestInfo | undefined;
  handling: string | null;
  decision: Routed | undefined;
  answeredBy: string | null;
  outcome: RouteOutcome;
  status: number;
  bytesIn: number;
  bytesOut: number;
  /** Answered by one of the port's own endpoints: not a routed request, so no routing event. */
  own: boolean;
  error: string | undefined;
  /** The upstream's Warning header values, for the upgrade-impact report. */
  warnings: readonly string[] | undefined;
}

/** Any exchange, plain or upgrade: what the steps shared by both see. */
export type Exchange = ExchangeOf<ServerResponse | undefined, Duplex | undefined, Buffer | undefined>;
/** A plain request's exchange: its response is there to write. */
export type RequestExchange = ExchangeOf<ServerResponse, undefined, undefined>;
/** An upgrade's exchange: its socket and the bytes read past its head. */
export type UpgradeExchange = ExchangeOf<undefined, Duplex, Buffer>;

/** Splits the request target and starts the exchange every request leaves behind. */
export function newExchange<Res extends ServerResponse | undefined, Socket extends Duplex | undefined, Head extends Buffer | undefined>(
  req: IncomingMessage,
  res: Res,
  socket: Socket,
  head: Head,
): ExchangeOf<Res, Socket, Head> {
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  // One literal of a fixed shape for plain requests and upgrades alike (one hidden class).
  return {
    req,
    res,
    socket,
    head,
    at: Date.now(),
    started: performance.now(),
    method: req.method ?? 'GET',
    rawUrl,
    path: q < 0 ? rawUrl : rawUrl.slice(0, q),
    query: q < 0 ? '' : rawUrl.slice(q + 1),
    decoded: undefined,
    info: undefined,
    handling: null,
    decision: undefined,
    answeredBy: null,
    outcome: 'rejected',
    status: 0,
    bytesIn: 0,
    bytesOut: 0,
    own: false,
    error: undefined,
    warnings: undefined,
  };
}

/** The routing event of a finished exchange, and the client usage the upgrade-impact report reads. */
export function recordExchange(telemetry: Telemetry, x: Exchange): void {
  const i = x.info;
  const resource = i !== undefined && i.isResourceRequest;
  const headers = x.req.headers;
  // One literal of a fixed shape: a conditional spread here took V8's slow object-clone path.
  const event = telemetry.record({
    at: x.at,
    userAgent: String(headers['user-agent'] ?? ''),
    method: x.method,
    verb: i?.verb ?? x.method.toLowerCase(),
    path: x.path,
    group: resource ? i.apiGroup : '',
    version: resource ? i.apiVersion : '',
    resource: resource ? i.resource : '',
    subresource: resource ? i.subresource : '',
    namespace: i?.namespace ?? '',
    handling: x.handling,
    answeredBy: x.answeredBy,
    outcome: x.outcome,
    status: x.status,
    latencyMs: Math.round((performance.now() - x.started) * 1000) / 1000,
    bytesIn: x.bytesIn,
    bytesOut: x.bytesOut,
    error: x.error || undefined,
  });
  telemetry.usage.record(event, headerValue(headers.authorization), x.warnings);
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

// The headers the port adds to what it forwards and tunnels:
// - on every response, the per-request trace no other tool gives (rule P3):
//   `X-Peerscope-Route: handling=<name|->; answering=<name|->; outcome=<outcome>`, each server by the
//   name a person reads (its host name); where that is not its identity (a lease-found server), the
//   identity follows as `handling-id=` / `answering-id=`, which parseRouteHeader reads first;
// - on a rerouted request, the decision's headers (R8: x-kubernetes-peer-proxied: true).
export const ROUTE_HEADER = 'x-peerscope-route';

/** What a server is called on screen, by identity (ServerSet.shownName); without it, the identity. */
export interface ShownNames {
  shownName(id: string): string;
}

export function routeHeader(handling: string | null, answering: string | null, outcome: RouteOutcome, names?: ShownNames): string {
  const h = handling === null ? '-' : (names?.shownName(handling) ?? handling);
  const a = answering === null ? '-' : (names?.shownName(answering) ?? answering);
  const ids = `${h !== '-' && h !== handling ? `; handling-id=${handling}` : ''}${a !== '-' && a !== answering ? `; answering-id=${answering}` : ''}`;
  return `handling=${h}; answering=${a}; outcome=${outcome}${ids}`;
}

// The X-Peerscope-Route header objects, one per (handling, answering, outcome) seen: a handful for
// a cluster, built once instead of twice per request. Bounded in case server names churn.
const routeHeaderCache = new Map<string, Readonly<Record<string, string>>>();

/** X-Peerscope-Route as a header object to hand to forward() or tunnel(); shared, never mutated. */
export function routeHeaders(
  handling: string | null,
  answering: string | null,
  outcome: RouteOutcome,
  names?: ShownNames,
): Readonly<Record<string, string>> {
  // The shown names are part of the key: a server's changes when another joins under the same host name.
  const h = handling === null ? '' : (names?.shownName(handling) ?? handling);
  const a = answering === null ? '' : (names?.shownName(answering) ?? answering);
  const key = `${handling ?? ''}\u0000${answering ?? ''}\u0000${outcome}\u0000${h}\u0000${a}`;
  let headers = routeHeaderCache.get(key);
  if (!headers) {
    if (routeHeaderCache.size >= 1_000) routeHeaderCache.clear();
    headers = Object.freeze({ [ROUTE_HEADER]: routeHeader(handling, answering, outcome, names) });
    routeHeaderCache.set(key, headers);
  }
  return headers;
}

/** What the decision adds to the request sent upstream: a reroute's headers (R8), else nothing. */
export function requestHeadersOf(d: Routed): Readonly<Record<string, string>> | undefined {
  return d.outcome === 'rerouted' ? d.headers : undefined;
}

export interface ParsedRoute {
  readonly handling: string | null;
  readonly answering: string | null;
  readonly outcome: string;
}

export function parseRouteHeader(value: string | undefined): ParsedRoute | undefined {
  if (!value) return undefined;
  const fields = new Map(value.split(';').map((p) => p.trim().split('=', 2) as [string, string]));
  const name = (v: string | undefined) => (v === undefined || v === '-' ? null : v);
  // The identity where the header gives one beside the shown name.
  return {
    handling: name(fields.get('handling-id') ?? fields.get('handling')),
    answering: name(fields.get('answering-id') ?? fields.get('answering')),
    outcome: fields.get('outcome') ?? '',
  };
}
