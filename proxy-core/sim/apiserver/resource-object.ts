// The object a resource request names: where it lives in the store, the stored object itself (404
// when absent), and the answer carrying it in the form the client asked for. Every verb file uses these.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreError, type GroupResource, type KubeObject } from '../store/store.js';
import type { ApiContext } from './context.js';
import { fromStoreError, sendJson } from './errors.js';
import { contentTypeOf, negotiateObjectForm, present } from './objects.js';
import { toTable } from './table.js';
import type { ResourceRequest } from './request-info.js';

export function groupResourceOf(rr: ResourceRequest): GroupResource {
  return { group: rr.group, resource: rr.resource };
}

/** Namespace under which the object lives in the store ("" for cluster-scoped). */
export function storeNamespace(rr: ResourceRequest): string {
  return rr.catalog.namespaced ? (rr.namespace ?? '') : '';
}

/** The stored object the request names, or a NotFound Status. */
export function existingObject(ctx: ApiContext, rr: ResourceRequest): KubeObject {
  const gr = groupResourceOf(rr);
  const obj = ctx.store.get(gr, storeNamespace(rr), rr.name ?? '');
  if (!obj)
    throw fromStoreError(
      new StoreError('NotFound', `${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}" not found`),
      gr,
      rr.name ?? '',
    );
  return obj;
}

export function respondObject(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  obj: KubeObject,
  rr: ResourceRequest,
  query: URLSearchParams,
): void {
  const form = negotiateObjectForm(req.headers.accept);
  const body =
    form.kind === 'table' ? toTable([obj], rr, form, query.get('includeObject'), obj.metadata.resourceVersion) : present(obj, rr);
  sendJson(res, code, body, contentTypeOf(form));
}
