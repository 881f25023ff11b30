// Routing and forwarding a request, in the order the steps run:
// - pick-handling-server: the server a load balancer would hand the request to (P1, policy.ts);
// - settle-decision: the settled decision (routing/settle.ts: decide() plus the waits for a returning
//   server's re-read and the rechecks before a 404 / 503); `unavailable` is answered as a 503 Status;
// - forward (a plain request; an upgrade goes to tunnel.ts instead): the merged discovery documents
//   (aggregated v2, and legacy /apis, the OpenAPI v3 index and /openapi/v2 by P8) are answered by the port; everything else is forwarded (upstream/forward.ts) with X-Peerscope-Route on
//   the answer and what the decision adds to the request (R8's header on a reroute, P6's Accept for
//   H's own document). When the load balancer would retry (policy.ts, mayRetryElsewhere), a refused
//   connection runs pick-handling-server and settle-decision once more, then forward.
import { PEER_PROXIED_HEADER, type Decision } from '../../routing/decide.js';
import { settleDecision } from '../../routing/settle.js';
import { acceptsAggregatedV2Json, negotiateDiscovery } from '../../discovery/negotiate.js';
import { ifNoneMatchHits } from '../../discovery/etag.js';
import { negotiateOpenApiV2, OPENAPI_V2_PATH } from '../../discovery/openapi-v2-http.js';
import { MEDIA } from '../../discovery/types.js';
import { failedAtServer, isConnectFailure, statusForUpstreamError } from '../../upstream/errors.js';
import { forward } from '../../upstream/forward.js';
import { failure, type Status } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import {
  headerValue,
  requestHeadersOf,
  ROUTE_HEADER,
  routeHeader,
  routeHeaders,
  type Exchange,
  type RequestExchange,
} from '../exchange.js';
import { writeOpenApiV2 } from '../openapi-v2-response.js';
import { mayRetryElsewhere } from '../policy.js';
import { ANSWERED, runSteps, stepList, type ListedStep, type Step, type StepResult, type With } from './step.js';

/** Each server's state and why, e.g. `apiserver "a" not-ready (failing: etcd, etcd-readiness)`. */
function serverStates(ctx: ProxyContext): string {
  const states = ctx.servers.statuses().map((s) => {
    const why = s.failingChecks.length ? `failing: ${s.failingChecks.join(', ')}` : s.lastError;
    return `apiserver "${s.name}" ${s.health}${why ? ` (${why})` : ''}`;
  });
  return states.join('; ') || 'none is known';
}

export const pickHandling: Step<never, 'handling'> = {
  name: 'pick-handling-server',
  fills: ['handling'],
  run(x, ctx) {
    const ready = ctx.servers.names().filter((n) => ctx.servers.health(n) === 'ready');
    const pick = ctx.picker.pick(ready);
    if (pick.server === null) {
      x.outcome = 'unavailable';
      // With none ready, the Status names every server and what failed (etcd down fails them all).
      return failure(503, 'ServiceUnavailable', ready.length === 0 ? `${pick.reason}: ${serverStates(ctx)}` : pick.reason);
    }
    x.handling = pick.server;
    return undefined;
  },
};

export const settle: Step<'info' | 'handling', 'decision'> = {
  name: 'settle-decision',
  needs: ['info', 'handling'],
  fills: ['decision'],
  run(x, ctx) {
    const decision = settleDecision({
      info: x.info,
      handling: x.handling,
      routes: ctx.state,
      servers: ctx.servers,
      peerProxiedHeader: headerValue(x.req.headers[PEER_PROXIED_HEADER]),
      accept: headerValue(x.req.headers.accept),
      discoveryMode: ctx.settings.discoveryMode,
      faithful: ctx.settings.faithful,
      random: ctx.random,
      since: x.started,
    });
    return decision instanceof Promise ? decision.then((d) => adopt(x, d)) : adopt(x, decision);
  },
};

function adopt(x: Exchange, decision: Decision): Status | undefined {
  x.outcome = decision.outcome;
  if (decision.outcome === 'unavailable') return failure(503, 'ServiceUnavailable', decision.message);
  x.decision = decision;
  return undefined;
}

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
  if (d.outcome === 'discovery-merged') return serveMerged(x, ctx, firstAttempt);
  const { req } = x;
  if (d.outcome === 'discovery-own' && d.accept !== undefined) req.headers.accept = d.accept;
  const target = d.target;
  const mayRetry = mayRetryElsewhere(firstAttempt, target, x.handling, d.outcome === 'rerouted', req);
  const longRunning = x.info.verb === 'watch' || /(?:^|&)follow=(?:true|1)/.test(x.query);
  const result = await forward(ctx.upstreams, target, req, x.res, {
    addRequestHeaders: requestHeadersOf(d),
    responseHeaders: routeHeaders(x.handling, target, d.outcome, ctx.servers),
    errorResponseHeaders: routeHeaders(x.handling, null, 'unavailable', ctx.servers),
    labels: ctx.servers,
    watch: longRunning,
    // Only long-running requests end at shutdown; others get the grace to finish.
    shutdown: longRunning ? ctx.shutdown : undefined,
    // Others are bounded by the headers timeout; a watch has no bound but this.
    serverDown: longRunning ? ctx.serverDown(target) : undefined,
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
  if (refused) ctx.servers.reportUnreachable(target, result.error.message);
  if (result.headersSent) return ANSWERED;
  x.outcome = 'unavailable';
  if (!mayRetry) return ANSWERED; // forward() wrote the error
  if (!refused) return statusForUpstreamError(ctx.servers.label(target), result.error);
  return retryOnAnotherHandlingServer(x, ctx);
}

async function retryOnAnotherHandlingServer(x: Forwarding, ctx: ProxyContext): Promise<StepResult> {
  const refused = await runSteps(RETRY_STEPS, x, ctx);
  return refused !== undefined ? refused : act(x, ctx, false);
}

/**
 * The merged discovery document the port answers itself, with ETag and 304: the peer-aggregated v2
 * document of the handling server (D1, JSON only); by P8 (decide() sends only a JSON Accept here) the
 * legacy APIGroupList and the OpenAPI v3 index of the whole server set.
 */
function serveMerged(x: Forwarding, ctx: ProxyContext, firstAttempt: boolean): StepResult | Promise<StepResult> {
  const { req, handling } = x;
  if (x.info.path === OPENAPI_V2_PATH) return serveOpenApiV2(x, ctx, firstAttempt);
  if (x.info.path.startsWith('/openapi/')) return serveOpenApiIndex(x, ctx, firstAttempt);
  const accept = headerValue(req.headers.accept);
  const negotiated = negotiateDiscovery(accept);
  if (negotiated.kind === 'legacy') return writeMerged(x, ctx, ctx.state.mergedLegacy(), 'application/json', 'public');
  if (negotiated.encoding !== 'json' && !acceptsAggregatedV2Json(accept)) {
    // Decide only sends aggregated v2 here; protobuf is not encoded by Peerscope (docs/decisions.md).
    return failure(406, 'NotAcceptable', `peerscope serves the peer-aggregated discovery document as JSON only; accept ${MEDIA.v2Json}`);
  }
  return writeMerged(x, ctx, ctx.state.merged(handling), MEDIA.v2Json, 'public');
}

/**
 * P8: the OpenAPI v3 index of the whole server set; revalidated like kube-openapi's own (no-cache +
 * ETag). When H's own index cannot be read with Peerscope's credential, the client gets H's own
 * answer to its own request instead (as with --faithful), not an error of Peerscope's making.
 */
async function serveOpenApiIndex(x: Forwarding, ctx: ProxyContext, firstAttempt: boolean): Promise<StepResult> {
  const merged = await ctx.openApiIndex.merged(x.handling).catch(() => undefined);
  if (merged) return writeMerged(x, ctx, merged, 'application/json', 'no-cache, private');
  x.decision = { outcome: 'non-resource', target: x.handling };
  x.outcome = 'non-resource';
  return act(x, ctx, firstAttempt);
}

/**
 * P8: the OpenAPI v2 document of the whole server set, in the encoding the client asks for (decide()
 * sends only what the servers serve). When H's own document cannot be read with Peerscope's
 * credential, the client gets H's own answer instead, as for the v3 index.
 */
async function serveOpenApiV2(x: Forwarding, ctx: ProxyContext, firstAttempt: boolean): Promise<StepResult> {
  const encoding = negotiateOpenApiV2(headerValue(x.req.headers.accept));
  const merged = encoding && (await ctx.openApiV2.merged(x.handling, encoding).catch(() => undefined));
  if (merged) {
    const written = writeOpenApiV2(x.req, x.res, x.handling, merged, ctx.servers);
    x.status = written.status;
    x.bytesOut = written.bytesOut;
    return ANSWERED;
  }
  x.decision = { outcome: 'non-resource', target: x.handling };
  x.outcome = 'non-resource';
  return act(x, ctx, firstAttempt);
}

function writeMerged(
  x: Forwarding,
  ctx: ProxyContext,
  merged: { readonly json: string; readonly etag: string },
  contentType: string,
  cacheControl: string,
): StepResult {
  const { req, res, handling } = x;
  const headers = {
    'content-type': contentType,
    etag: merged.etag,
    vary: 'Accept',
    'cache-control': cacheControl,
    [ROUTE_HEADER]: routeHeader(handling, null, 'discovery-merged', ctx.servers),
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
