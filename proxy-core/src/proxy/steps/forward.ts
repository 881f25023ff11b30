// Acting on a plain request's decision: the merged discovery document is answered by the port;
// everything else is forwarded (upstream/forward.ts) with X-Peerscope-Route on the answer and what
// the decision adds to the request (route-header.ts: R8's header on a reroute, P6's Accept for H's
// own document). When the load balancer would retry (policy.ts, mayRetryElsewhere), a refused
// connection sends the request once more through pick-handling-server and settle-decision.
import { acceptsAggregatedV2Json, negotiateDiscovery } from '../../discovery/negotiate.js';
import { ifNoneMatchHits } from '../../discovery/etag.js';
import { MEDIA } from '../../discovery/types.js';
import { failedAtServer, isConnectFailure, statusForUpstreamError } from '../../upstream/errors.js';
import { forward } from '../../upstream/forward.js';
import { failure } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import { headerValue, type RequestExchange } from '../exchange.js';
import { mayRetryElsewhere } from '../policy.js';
import { ROUTE_HEADER, routeHeader, routeHeaders, requestHeadersOf } from '../route-header.js';
import { pickHandling, settle } from './route.js';
import { ANSWERED, runSteps, stepList, type ListedStep, type Step, type StepResult, type With } from './step.js';

/** What the forward step reads: the class, the handling server and the decision. */
type Forwarding = With<RequestExchange, 'info' | 'handling' | 'decision'>;

export const forwardOrServe: Step<'info' | 'handling' | 'decision', never, RequestExchange> = {
  name: 'forward',
  needs: ['info', 'handling', 'decision'],
  run: (x, ctx) => act(x, ctx, true),
};

/** What a retry runs again before forwarding: another handling server and its settled decision. */
const RETRY_STEPS: readonly ListedStep<With<RequestExchange, 'info'>>[] = stepList<RequestExchange, 'info'>()(pickHandling, settle);

async function act(x: Forwarding, ctx: ProxyContext, firstAttempt: boolean): Promise<StepResult> {
  const d = x.decision;
  if (d.outcome === 'discovery-merged') return serveMerged(x, ctx);
  const { req } = x;
  if (d.outcome === 'discovery-own' && d.accept !== undefined) req.headers.accept = d.accept;
  const target = d.target;
  const mayRetry = mayRetryElsewhere(firstAttempt, target, x.handling, d.outcome === 'rerouted', req);
  const longRunning = x.info.verb === 'watch' || /(?:^|&)follow=(?:true|1)/.test(x.query);
  const result = await forward(ctx.upstreams, target, req, x.res, {
    addRequestHeaders: requestHeadersOf(d),
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

async function retryOnAnotherHandlingServer(x: Forwarding, ctx: ProxyContext): Promise<StepResult> {
  const refused = await runSteps(RETRY_STEPS, x, ctx);
  return refused !== undefined ? refused : act(x, ctx, false);
}

/** The peer-aggregated discovery document of the handling server (D1): ETag, 304, JSON only. */
function serveMerged(x: Forwarding, ctx: ProxyContext): StepResult {
  const { req, res, handling } = x;
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
