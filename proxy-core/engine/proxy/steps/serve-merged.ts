// The merged discovery documents the port answers itself (a `discovery-merged` decision), with ETag
// and 304: the peer-aggregated v2 document of the handling server (D1, JSON only); by P8 (decide()
// sends only a JSON Accept here) the legacy APIGroupList and the OpenAPI v3 index of the whole
// server set, and the OpenAPI v2 document in the encoding the client asks for. Any other decision
// goes on to the forward (forward.ts) without entering this step (its `only`).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { acceptsAggregatedV2Json, negotiateDiscovery } from '../../discovery/negotiate.js';
import { ifNoneMatchHits } from '../../discovery/etag.js';
import { negotiateOpenApiV2, OPENAPI_V2_PATH } from '../../discovery/openapi-v2-http.js';
import { MEDIA } from '../../discovery/types.js';
import { headerValue } from '../../util/headers.js';
import { failure } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import type { RequestExchange } from '../exchange.js';
import { writeOpenApiV2 } from '../openapi-v2-response.js';
import { ROUTE_HEADER, routeHeader } from '../route-header.js';
import { ANSWERED, type Step, type StepResult, type With } from './step.js';

/** What serving a merged document reads: the class, the handling server and the decision. */
type Serving = With<RequestExchange, 'info' | 'handling' | 'decision'>;

export const serveMerged: Step<'info' | 'handling' | 'decision', never, RequestExchange> = {
  name: 'serve-merged',
  needs: ['info', 'handling', 'decision'],
  only: { decision: 'discovery-merged' },
  run: (x, ctx) => serve(x, ctx),
};

function serve(x: Serving, ctx: ProxyContext): StepResult | Promise<StepResult> {
  const { req, handling } = x;
  if (x.info.path === OPENAPI_V2_PATH) return serveOpenApiV2(x, ctx);
  if (x.info.path.startsWith('/openapi/')) return serveOpenApiIndex(x, ctx);
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
async function serveOpenApiIndex(x: Serving, ctx: ProxyContext): Promise<StepResult> {
  const merged = await ctx.openApiIndex.merged(x.handling).catch(() => undefined);
  if (merged) return writeMerged(x, ctx, merged, 'application/json', 'no-cache, private');
  return forwardToHandling(x);
}

/**
 * P8: the OpenAPI v2 document of the whole server set, in the encoding the client asks for (decide()
 * sends only what the servers serve). When H's own document cannot be read with Peerscope's
 * credential, the client gets H's own answer instead, as for the v3 index.
 */
async function serveOpenApiV2(x: Serving, ctx: ProxyContext): Promise<StepResult> {
  const encoding = negotiateOpenApiV2(headerValue(x.req.headers.accept));
  const merged = encoding && (await ctx.openApiV2.merged(x.handling, encoding).catch(() => undefined));
  if (!merged) return forwardToHandling(x);
  const written = writeOpenApiV2(x.req, x.res, x.handling, merged, ctx.servers);
  x.status = written.status;
  x.bytesOut = written.bytesOut;
  return ANSWERED;
}

/** The merged document cannot be had: the request is H's own, and goes on to the forward. */
function forwardToHandling(x: Serving): undefined {
  x.decision = { outcome: 'non-resource', target: x.handling };
  x.outcome = 'non-resource';
  return undefined;
}

function writeMerged(
  x: Serving,
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
