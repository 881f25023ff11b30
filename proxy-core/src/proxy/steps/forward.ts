// Acting on a plain request's decision: the merged discovery document is answered by the port;
// everything else is forwarded (upstream/forward.ts) with X-Peerscope-Route on the answer and, on a
// reroute, x-kubernetes-peer-proxied on the request (R8, P3). When upstream/retry.ts allows it, a
// refused connection sends the request once more through pick-handling-server and settle-decision.
import type { RouteOutcome } from '../../../contract/events.js';
import { acceptsAggregatedV2Json, negotiateDiscovery } from '../../discovery/negotiate.js';
import { ifNoneMatchHits } from '../../discovery/etag.js';
import { MEDIA } from '../../discovery/types.js';
import { PEER_PROXIED_HEADER } from '../../routing/decide.js';
import { failedAtServer, isConnectFailure, statusForUpstreamError } from '../../upstream/errors.js';
import { forward } from '../../upstream/forward.js';
import { mayRetryElsewhere } from '../../upstream/retry.js';
import { failure } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import { headerValue, type Exchange, type Routed } from '../exchange.js';
import { ROUTE_HEADER, routeHeader } from '../route-header.js';
import { pickHandling, settle } from './route.js';
import { ANSWERED, runSteps, type Step, type StepResult } from './step.js';

export const forwardOrServe: Step = { name: 'forward', run: (x, ctx) => act(x, ctx, true) };

/** What a retry runs again before forwarding: another handling server and its settled decision. */
const RETRY_STEPS: readonly Step[] = [pickHandling, settle];

async function act(x: Exchange, ctx: ProxyContext, firstAttempt: boolean): Promise<StepResult> {
  const d = x.decision as Routed;
  if (d.outcome === 'discovery-merged') return serveMerged(x, ctx);
  const { req } = x;
  if (
    d.outcome === 'discovery-own' &&
    ctx.settings.discoveryMode === 'nopeer' &&
    !String(req.headers.accept ?? '').startsWith(MEDIA.v2JsonNoPeer)
  ) {
    // Ask H for its own document even where H itself runs the mixed version proxy.
    req.headers.accept = `${MEDIA.v2JsonNoPeer},${req.headers.accept ?? ''}`;
  }
  const target = d.target;
  // Emulating the load balancer's one retry (upstream/retry.ts).
  const mayRetry = mayRetryElsewhere(firstAttempt, target, x.handling, d.outcome === 'rerouted', req);
  const longRunning = x.info?.verb === 'watch' || /(?:^|&)follow=(?:true|1)/.test(x.query);
  const result = await forward(ctx.upstreams, target, req, x.res!, {
    addRequestHeaders: d.outcome === 'rerouted' ? REROUTED_REQUEST_HEADERS : undefined,
    responseHeaders: routeHeaders(x.handling, target, d.outcome),
    errorResponseHeaders: routeHeaders(x.handling, null, 'unavailable'),
    watch: longRunning,
    // Only long-running requests end at shutdown; others get the grace to finish.
    shutdown: longRunning ? ctx.shutdown : undefined,
    writeErrors: !mayRetry,
  });
  x.status = result.status;
  x.bytesIn = result.bytesIn;
  x.bytesOut = result.bytesOut;
  x.warnings = result.warnings;
  x.answeredBy = result.error && !result.headersSent ? null : target;
  if (!result.error) return ANSWERED;
  x.error = result.error.message;
  // A client that went away (a kubectl watch ended with Ctrl-C) is not the apiserver's failure.
  if (failedAtServer(result.error)) ctx.telemetry.serverFailed(target);
  const refused = isConnectFailure(result.error);
  if (refused) ctx.peers.reportUnreachable(target, result.error.message);
  if (result.headersSent) return ANSWERED;
  x.outcome = 'unavailable';
  if (!mayRetry) return ANSWERED; // forward() wrote the error
  if (!refused) return statusForUpstreamError(target, result.error);
  return retryOnAnotherHandlingServer(x, ctx);
}

async function retryOnAnotherHandlingServer(x: Exchange, ctx: ProxyContext): Promise<StepResult> {
  const refused = await runSteps(RETRY_STEPS, x, ctx);
  return refused !== undefined ? refused : act(x, ctx, false);
}

/** The peer-aggregated discovery document of the handling server (D1): ETag, 304, JSON only. */
function serveMerged(x: Exchange, ctx: ProxyContext): StepResult {
  const { req } = x;
  const res = x.res!;
  const handling = x.handling as string;
  const accept = headerValue(req.headers.accept);
  const negotiated = negotiateDiscovery(accept);
  if (negotiated.kind !== 'aggregated' || (negotiated.encoding !== 'json' && !acceptsAggregatedV2Json(accept))) {
    // Decide only sends aggregated v2 here; protobuf is not encoded by Peerscope (docs/decisions.md).
    return failure(406, 'NotAcceptable', `peerscope serves the peer-aggregated discovery document as JSON only; accept ${MEDIA.v2Json}`);
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
    x.status = 304;
    return ANSWERED;
  }
  const body = Buffer.from(merged.json);
  res.writeHead(200, { ...headers, 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
  x.status = 200;
  x.bytesOut = req.method === 'HEAD' ? 0 : body.length;
  return ANSWERED;
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
