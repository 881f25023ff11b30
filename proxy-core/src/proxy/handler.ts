// The request path of the local port, as small named steps (DESIGN "The request path"):
// host-check → origin-check → request-filter → strip identity headers → request-info → handling
// server → decide → act → record. Every refusal is decided before anything reaches an apiserver.
// Every response carries X-Peerscope-Route; every error Peerscope itself produces is a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RouteOutcome } from '../../contract/events.js';
import type { PeerSet } from '../cluster/peer-set.js';
import { acceptsAggregatedV2Json, negotiateDiscovery } from '../discovery/negotiate.js';
import { ifNoneMatchHits } from '../discovery/etag.js';
import { serveImpact } from '../impact/endpoint.js';
import { MEDIA } from '../discovery/types.js';
import { decide, PEER_PROXIED_HEADER, PROXY_ERROR_PREFIX, type Decision } from '../routing/decide.js';

import { decodePath, requestInfo, type RequestInfo } from '../routing/request-info.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { isConnectFailure, statusForUpstreamError } from '../upstream/errors.js';
import { forward, hasBody } from '../upstream/forward.js';
import type { Upstreams } from '../upstream/pool.js';
import { tunnel } from '../upstream/tunnel.js';
import { failure, type Status } from '../util/status.js';
import { checkHost } from './passes/host-check.js';
import { checkOrigin } from './passes/origin-check.js';
import { checkRequestFilter, type RequestFilter } from './passes/request-filter.js';
import { checkRequestHead } from './passes/request-head.js';
import { stripIdentityHeaders } from './passes/strip-identity.js';
import { writeStatus, writeStatusToSocket } from '../util/write-status.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import type { HandlingServerPicker } from './policy.js';
import { ROUTE_HEADER, routeHeader } from './route-header.js';
import type { RouteState } from './route-state.js';

type Routed = Exclude<Decision, { outcome: 'unavailable' }>;

export interface ProxyContext {
  readonly peers: PeerSet;
  readonly state: RouteState;
  readonly upstreams: Upstreams;
  readonly telemetry: Telemetry;
  readonly picker: HandlingServerPicker;
  readonly settings: {
    discoveryMode: DiscoveryMode;
    readonly acceptHosts: readonly string[];
    /** Origins a browser may send requests from (whole-match patterns); none by default. */
    readonly acceptOrigins: readonly RegExp[];
    readonly filter: RequestFilter;
  };
  readonly listenerPort: () => number;
  readonly random: () => number;
  /** The current routing snapshot, served at /.peerscope/snapshot. */
  readonly snapshot: () => unknown;
  /** Aborted when the port shuts down: watches and follows end cleanly. */
  readonly shutdown: AbortSignal;
}

/** Paths under this prefix are the port's own (never a Kubernetes path). */
export const CONTROL_PREFIX = '/.peerscope/';
/** The longest a request waits for a returning server's discovery to be read again. */
const REREAD_WAIT_MS = 2_000;

interface Trace {
  readonly at: number;
  readonly started: number;
  readonly method: string;
  readonly path: string;
  info: RequestInfo | undefined;
  handling: string | null;
  answeredBy: string | null;
  outcome: RouteOutcome;
  status: number;
  bytesIn: number;
  bytesOut: number;
  /** Answered by one of the port's own endpoints: not a routed request, so no routing event. */
  own: boolean;
  error?: string;
  /** The upstream's Warning header values, for the upgrade-impact report. */
  warnings?: readonly string[];
}

export function createHandler(ctx: ProxyContext) {
  function readyServers(): string[] {
    return ctx.peers.names().filter((n) => ctx.peers.health(n) === 'ready');
  }

  function record(req: IncomingMessage, t: Trace): void {
    const i = t.info;
    const resource = i !== undefined && i.isResourceRequest;
    // One literal of a fixed shape: a conditional spread here took V8's slow object-clone path.
    const event = ctx.telemetry.record({
      at: t.at,
      userAgent: String(req.headers['user-agent'] ?? ''),
      method: t.method,
      verb: i?.verb ?? t.method.toLowerCase(),
      path: t.path,
      group: resource ? i.apiGroup : '',
      version: resource ? i.apiVersion : '',
      resource: resource ? i.resource : '',
      subresource: resource ? i.subresource : '',
      namespace: i?.namespace ?? '',
      handling: t.handling,
      answeredBy: t.answeredBy,
      outcome: t.outcome,
      status: t.status,
      latencyMs: Math.round((performance.now() - t.started) * 1000) / 1000,
      bytesIn: t.bytesIn,
      bytesOut: t.bytesOut,
      error: t.error || undefined,
    });
    ctx.telemetry.usage.record(event, headerValue(req.headers.authorization), t.warnings);
  }

  type Routing = { decision: Routed } | { status: Status };

  /**
   * Steps shared by plain requests and upgrades; returns the decision or the Status to answer.
   * Synchronous unless the request must wait (a returning server's re-read, a recheck before a
   * 404 or 503): the common request allocates no promise here.
   */
  function route(req: IncomingMessage, t: Trace): Routing | Promise<Routing> {
    const refused = admit(req, t.method, t.path, t.info?.path);
    if (refused) {
      t.outcome = 'rejected';
      return { status: refused };
    }
    stripIdentityHeaders(req.headers);
    const pick = ctx.picker.pick(readyServers());
    if (pick.server === null) {
      t.outcome = 'unavailable';
      return { status: failure(503, 'ServiceUnavailable', pick.reason) };
    }
    const handling = pick.server;
    t.handling = handling;
    // A handling server that just came back may run another release: decide on its new document.
    const reread = ctx.peers.rereadPending(handling);
    if (reread) return Promise.race([reread, new Promise((r) => setTimeout(r, REREAD_WAIT_MS))]).then(() => decideAndCheck(req, t, handling));
    return decideAndCheck(req, t, handling);
  }

  /**
   * The refusals every request of the port goes through first, plain, upgrade or control: a Host
   * that does not name the port, a request a browser sent from another origin, a refused method or path.
   */
  function admit(req: IncomingMessage, method: string, path: string, decodedPath: string | undefined): Status | undefined {
    const host = checkHost(req.headers.host, { port: ctx.listenerPort() }, ctx.settings.acceptHosts);
    if (!host.ok) return host.status;
    return checkOrigin(req.headers, req.headers.host, ctx.settings.acceptOrigins) ?? checkRequestFilter(method, path, decodedPath, ctx.settings.filter);
  }

  function decideNow(req: IncomingMessage, t: Trace, handling: string): Decision {
    return decide({
      info: t.info as RequestInfo,
      handling,
      table: ctx.state.table,
      peers: ctx.peers,
      peerProxiedHeader: headerValue(req.headers[PEER_PROXIED_HEADER]),
      accept: headerValue(req.headers.accept),
      discoveryMode: ctx.settings.discoveryMode,
      random: ctx.random,
    });
  }

  function decideAndCheck(req: IncomingMessage, t: Trace, handling: string, rereadWaited = false): Routing | Promise<Routing> {
    const decision = decideNow(req, t, handling);
    // A peer that just came back may run another release: its old document may say it serves a GVR
    // it no longer does (a rollout back to the older release). Route by its new one.
    const peerReread = decision.outcome === 'rerouted' && !rereadWaited ? ctx.peers.rereadPending(decision.target) : undefined;
    if (peerReread) return Promise.race([peerReread, new Promise((r) => setTimeout(r, REREAD_WAIT_MS))]).then(() => decideAndCheck(req, t, handling, true));
    if (decision.outcome === 'notfound' || (decision.outcome === 'unavailable' && decision.message.startsWith(PROXY_ERROR_PREFIX))) {
      // No false 404 and no needless 503: a server that just came back, possibly at a new release,
      // may serve it; look again before answering (see PeerSet.recheckOutOfService).
      const generation = ctx.state.generation;
      return ctx.peers.recheckOutOfService(t.started).then(() => settleDecision(t, ctx.state.generation !== generation ? decideNow(req, t, handling) : decision));
    }
    return settleDecision(t, decision);
  }

  function settleDecision(t: Trace, decision: Decision): Routing {
    t.outcome = decision.outcome;
    if (decision.outcome === 'unavailable') return { status: failure(503, 'ServiceUnavailable', decision.message) };
    return { decision };
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { t, rawUrl, path, query } = newTrace(req);
    try {
      if (!path.startsWith('/')) {
        return answerStatus(res, t, failure(400, 'BadRequest', `the request target "${truncate(rawUrl)}" is not an absolute path`));
      }
      const badHead = checkRequestHead(req);
      if (badHead) {
        // Where the body ends is in doubt: nothing after it on this connection can be trusted.
        if (badHead.code === 501) res.setHeader('connection', 'close');
        return answerStatus(res, t, badHead);
      }
      if (path.startsWith(CONTROL_PREFIX)) return serveControl(req, res, t, path);
      // Routed by the decoded path, as kube-apiserver reads it; forwarded as sent.
      const decoded = decodePath(path);
      if (decoded === undefined) return answerStatus(res, t, failure(400, 'BadRequest', `the request path "${truncate(path)}" has an invalid percent-encoding`));
      t.info = requestInfo(t.method, decoded, query);
      const longRunning = t.info.verb === 'watch' || /(?:^|&)follow=(?:true|1)/.test(query);
      let routed = await route(req, t);
      for (let attempt = 0; ; attempt++) {
        if ('status' in routed) return answerStatus(res, t, routed.status);
        const d = routed.decision;
        if (d.outcome === 'discovery-merged') return serveMerged(req, res, t);
        const target = d.target;
        if (d.outcome === 'discovery-own' && ctx.settings.discoveryMode === 'nopeer' && !String(req.headers.accept ?? '').startsWith(MEDIA.v2JsonNoPeer)) {
          // Ask H for its own document even where H itself runs the mixed version proxy.
          req.headers.accept = `${MEDIA.v2JsonNoPeer},${req.headers.accept ?? ''}`;
        }
        // Emulating the load balancer: when the handling server refuses the connection, the request
        // never reached it, so it may go to another handling server once (as nginx's
        // proxy_next_upstream does). A reroute to a peer is never retried (spec R8, R10).
        const mayRetry = attempt === 0 && target === t.handling && d.outcome !== 'rerouted' && !hasBody(req);
        const result = await forward(ctx.upstreams, target, req, res, {
          addRequestHeaders: d.outcome === 'rerouted' ? REROUTED_REQUEST_HEADERS : undefined,
          responseHeaders: routeHeaders(t.handling, target, d.outcome),
          errorResponseHeaders: routeHeaders(t.handling, null, 'unavailable'),
          watch: longRunning,
          // Only long-running requests end at shutdown; others get the grace to finish.
          shutdown: longRunning ? ctx.shutdown : undefined,
          writeErrors: !mayRetry,
        });
        t.status = result.status;
        t.bytesIn = result.bytesIn;
        t.bytesOut = result.bytesOut;
        t.warnings = result.warnings;
        t.answeredBy = result.error && !result.headersSent ? null : target;
        if (!result.error) return;
        t.error = result.error.message;
        ctx.telemetry.serverFailed(target);
        const refused = isConnectFailure(result.error);
        if (refused) ctx.peers.reportUnreachable(target, result.error.message);
        if (result.headersSent) return;
        t.outcome = 'unavailable';
        if (mayRetry && refused) {
          routed = await route(req, t);
          continue;
        }
        if (mayRetry) return answerStatus(res, t, statusForUpstreamError(target, result.error));
        return;
      }
    } catch (err) {
      t.error = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) answerStatus(res, t, failure(500, 'InternalError', `peerscope: ${t.error}`));
      else res.destroy();
    } finally {
      if (!t.own) record(req, t);
    }
  }

  function answerStatus(res: ServerResponse, t: Trace, status: Status): void {
    t.status = status.code;
    t.error ??= status.message;
    t.bytesOut = writeStatus(res, status, { [ROUTE_HEADER]: routeHeader(t.handling, null, t.outcome) });
  }

  function serveMerged(req: IncomingMessage, res: ServerResponse, t: Trace): void {
    const handling = t.handling as string;
    const accept = headerValue(req.headers.accept);
    const negotiated = negotiateDiscovery(accept);
    if (negotiated.kind !== 'aggregated' || (negotiated.encoding !== 'json' && !acceptsAggregatedV2Json(accept))) {
      // Decide only sends aggregated v2 here; protobuf is not encoded by Peerscope (docs/decisions.md).
      return answerStatus(res, t, failure(406, 'NotAcceptable', `peerscope serves the peer-aggregated discovery document as JSON only; accept ${MEDIA.v2Json}`));
    }
    const merged = ctx.state.merged(handling);
    const headers = {
      'content-type': MEDIA.v2Json,
      etag: merged.etag,
      vary: 'Accept',
      'cache-control': 'public',
      [ROUTE_HEADER]: routeHeader(handling, null, 'discovery-merged'),
    };
    if (ifNoneMatchHits(headerValue(req.headers['if-none-match']), merged.etag)) {
      res.writeHead(304, headers).end();
      t.status = 304;
      return;
    }
    const body = Buffer.from(merged.json);
    res.writeHead(200, { ...headers, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
    t.status = 200;
    t.bytesOut = req.method === 'HEAD' ? 0 : body.length;
  }

  function serveControl(req: IncomingMessage, res: ServerResponse, t: Trace, path: string): void {
    const refused = admit(req, t.method, path, decodePath(path));
    // A refusal is recorded like any other; what the endpoints serve is not routing.
    if (refused) return answerStatus(res, t, refused);
    t.own = true;
    if (path === `${CONTROL_PREFIX}metrics` && (req.method === 'GET' || req.method === 'HEAD')) {
      const text = ctx.telemetry.prometheus();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(req.method === 'HEAD' ? undefined : text);
      t.status = 200;
      return;
    }
    if (path === `${CONTROL_PREFIX}snapshot` && req.method === 'GET') {
      const body = JSON.stringify(ctx.snapshot());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      t.status = 200;
      return;
    }
    if (path === `${CONTROL_PREFIX}impact` && req.method === 'GET') {
      return serveImpact({ peerStatuses: () => ctx.peers.statuses(), routes: ctx.state, telemetry: ctx.telemetry }, req.url ?? '', res);
    }
    t.status = 404;
    writeStatus(res, failure(404, 'NotFound', `peerscope has no control endpoint ${path}; it has ${CONTROL_PREFIX}metrics, ${CONTROL_PREFIX}snapshot and ${CONTROL_PREFIX}impact`));
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { t, path, query } = newTrace(req);
    try {
      const decoded = decodePath(path);
      const refused = !path.startsWith('/') || path.startsWith(CONTROL_PREFIX) || decoded === undefined ? failure(400, 'BadRequest', 'this path cannot be upgraded') : checkRequestHead(req);
      if (refused) {
        t.status = refused.code;
        writeStatusToSocket(socket, refused, { [ROUTE_HEADER]: routeHeader(null, null, 'rejected') });
        return;
      }
      t.info = requestInfo(t.method, decoded as string, query);
      const routed = await route(req, t);
      if ('status' in routed) {
        t.status = routed.status.code;
        t.error = routed.status.message;
        writeStatusToSocket(socket, routed.status, { [ROUTE_HEADER]: routeHeader(t.handling, null, t.outcome) });
        return;
      }
      const d = routed.decision;
      if (d.outcome === 'discovery-merged') {
        t.status = 400;
        writeStatusToSocket(socket, failure(400, 'BadRequest', 'discovery cannot be upgraded'), { [ROUTE_HEADER]: routeHeader(t.handling, null, 'rejected') });
        return;
      }
      const result = await tunnel(ctx.upstreams, d.target, req, socket, head, {
        addRequestHeaders: d.outcome === 'rerouted' ? { [PEER_PROXIED_HEADER]: 'true' } : {},
        responseHeaders: { [ROUTE_HEADER]: routeHeader(t.handling, d.target, d.outcome) },
        errorResponseHeaders: { [ROUTE_HEADER]: routeHeader(t.handling, null, 'unavailable') },
      });
      t.status = result.status;
      t.bytesIn = result.bytesIn;
      t.bytesOut = result.bytesOut;
      t.answeredBy = result.error && result.status >= 500 ? null : d.target;
      if (result.error) {
        t.error = result.error.message;
        ctx.telemetry.serverFailed(d.target);
        if (result.status === 503) t.outcome = 'unavailable';
      }
    } catch (err) {
      t.error = err instanceof Error ? err.message : String(err);
      socket.destroy();
    } finally {
      record(req, t);
    }
  }

  return { onRequest, onUpgrade };
}

/** Added to a rerouted request (spec R8); never mutated. */
const REROUTED_REQUEST_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [PEER_PROXIED_HEADER]: 'true' });

// The X-Peerscope-Route header objects, one per (handling, answering, outcome) seen: a handful for
// a cluster, built once instead of twice per request. Bounded in case server names churn.
const routeHeaderCache = new Map<string, Readonly<Record<string, string>>>();

function routeHeaders(handling: string | null, answering: string | null, outcome: RouteOutcome): Readonly<Record<string, string>> {
  const key = `${handling ?? ''}\u0000${answering ?? ''}\u0000${outcome}`;
  let headers = routeHeaderCache.get(key);
  if (!headers) {
    if (routeHeaderCache.size >= 1_000) routeHeaderCache.clear();
    headers = Object.freeze({ [ROUTE_HEADER]: routeHeader(handling, answering, outcome) });
    routeHeaderCache.set(key, headers);
  }
  return headers;
}

/** Splits the request target and starts the trace every request leaves behind. */
function newTrace(req: IncomingMessage): { t: Trace; rawUrl: string; path: string; query: string } {
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const t: Trace = {
    at: Date.now(), started: performance.now(), method: req.method ?? 'GET', path, info: undefined,
    handling: null, answeredBy: null, outcome: 'rejected', status: 0, bytesIn: 0, bytesOut: 0, own: false, warnings: undefined,
  };
  return { t, rawUrl, path, query: q < 0 ? '' : rawUrl.slice(q + 1) };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
