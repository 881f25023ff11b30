// The read verbs: get one object, list a scope (selectors, limit and continue tokens, Table form).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../store/store.js';
import type { ApiContext } from './context.js';
import { apiVersionOf } from './context.js';
import { badRequest, sendJson } from './errors.js';
import { contentTypeOf, negotiateObjectForm, present, selectorsOf } from './objects.js';
import { toTable } from './table.js';
import type { ResourceRequest } from './request-info.js';
import { existingObject, groupResourceOf, respondObject } from './resource-object.js';

export function serveGet(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
  respondObject(req, res, 200, existingObject(ctx, rr), rr, query);
}

/** Objects of the request's scope that pass its label and field selectors. */
export function selectObjects(ctx: ApiContext, rr: ResourceRequest, query: URLSearchParams): KubeObject[] {
  const { labelMatches, fieldMatches } = selectorsOf(query, rr);
  const namespace = rr.catalog.namespaced ? rr.namespace : undefined;
  return ctx.store.list(groupResourceOf(rr), namespace).filter((o) => labelMatches(o) && fieldMatches(o));
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { start?: unknown };
    if (typeof parsed.start === 'string') return parsed.start;
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

export function serveList(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
  const form = negotiateObjectForm(req.headers.accept);
  const resourceVersion = String(ctx.store.currentResourceVersion());
  let items = selectObjects(ctx, rr, query);
  const continueToken = query.get('continue');
  if (continueToken) {
    const after = decodeContinue(continueToken);
    items = items.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}` > after);
  }
  const limit = Number(query.get('limit') ?? 0);
  const metadata: Record<string, unknown> = { resourceVersion };
  if (Number.isInteger(limit) && limit > 0 && items.length > limit) {
    const last = items[limit - 1] as KubeObject;
    metadata.continue = Buffer.from(
      JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(resourceVersion), start: `${last.metadata.namespace ?? ''}/${last.metadata.name}` }),
    ).toString('base64url');
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  if (form.kind === 'table') {
    const table = toTable(items, rr, form, query.get('includeObject'), resourceVersion);
    table.metadata = metadata;
    sendJson(res, 200, table, contentTypeOf(form));
    return;
  }
  sendJson(res, 200, {
    apiVersion: apiVersionOf(rr.group, rr.version),
    kind: `${rr.catalog.kind}List`,
    metadata,
    items: items.map((o) => present(o, rr)),
  });
}
