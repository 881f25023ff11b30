// Routes one request of a simulated apiserver: open paths (version, health), authentication,
// OpenAPI, discovery, then resources. Every failure leaves as a Status; nothing escapes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAuthenticated, unauthorized } from './auth.js';
import type { ApiContext } from './context.js';
import { serveDiscoveryRoot, serveLegacyGroup, serveLegacyResourceList } from './discovery.js';
import { ApiError, internalError, methodNotAllowed, notFoundError, sendStatus, sendText } from './errors.js';
import { serveHealth, serveVersion } from './health.js';
import { serveOpenApi } from './openapi.js';
import { resolveResourceRequest } from './request-info.js';
import { serveResource } from './resources.js';

export async function routeRequest(ctx: ApiContext, token: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    await route(ctx, token, req, res);
  } catch (err) {
    // Drain what is left of the body so the connection stays usable, then answer.
    if (!req.complete) req.resume();
    sendStatus(res, err instanceof ApiError ? err.status : internalError(err));
  }
}

async function route(ctx: ApiContext, token: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const path = url.pathname;
  const query = url.searchParams;
  const method = req.method ?? 'GET';
  if (!isAuthenticated(req, path, token)) {
    req.resume();
    sendStatus(res, unauthorized());
    return;
  }
  let segments: string[];
  try {
    segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw notFoundError();
  }
  const rr = resolveResourceRequest(ctx.served, segments);
  if (rr) return serveResource(ctx, req, res, rr, query);

  // Everything below is a non-resource path: read-only.
  if (method !== 'GET' && method !== 'HEAD') {
    if (isKnownNonResourcePath(segments)) throw methodNotAllowed();
    throw notFoundError();
  }
  if (path === '/version' || path === '/version/') return serveVersion(ctx, res);
  if (serveHealth(ctx, res, path.replace(/\/$/, ''), query)) return;
  if (serveOpenApi(ctx, req, res, path, query)) return;
  if (path === '/metrics')
    return sendText(
      res,
      200,
      `# simulated kube-apiserver ${ctx.serverName}\napiserver_storage_objects_revision ${ctx.store.currentResourceVersion()}\n`,
    );
  const [root, first, second] = segments;
  if (root === 'api' && segments.length === 1) return serveDiscoveryRoot(ctx, req, res, 'api');
  if (root === 'apis' && segments.length === 1) return serveDiscoveryRoot(ctx, req, res, 'apis');
  if (root === 'api' && segments.length === 2) return serveLegacyResourceList(ctx, res, '', first as string);
  if (root === 'apis' && segments.length === 2) return serveLegacyGroup(ctx, res, first as string);
  if (root === 'apis' && segments.length === 3) return serveLegacyResourceList(ctx, res, first as string, second as string);
  throw notFoundError();
}

function isKnownNonResourcePath(segments: readonly string[]): boolean {
  const root = segments[0];
  return (
    root === 'api' ||
    root === 'apis' ||
    root === 'version' ||
    root === 'openapi' ||
    root === 'livez' ||
    root === 'readyz' ||
    root === 'healthz'
  );
}
