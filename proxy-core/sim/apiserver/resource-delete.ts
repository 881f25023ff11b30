// DELETE of one object (with its uid / resourceVersion preconditions) and of a selected collection.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from './context.js';
import { apiVersionOf } from './context.js';
import { apiError, sendJson } from './errors.js';
import { isDryRun, isPlainObject, parseJsonObject, present, readBody, requestMediaType } from './objects.js';
import { decodeProtobufDeleteOptions, PROTOBUF_MEDIA_TYPE } from './protobuf-body.js';
import type { ResourceRequest } from './request-info.js';
import { existingObject, groupResourceOf, storeNamespace } from './resource-object.js';
import { selectObjects } from './resource-read.js';

export async function serveDelete(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const raw = await readBody(req);
  const current = existingObject(ctx, rr);
  // DeleteOptions may come in the body (kubectl delete --dry-run=server sends dryRun there) or the query.
  let dryRun = isDryRun(query);
  if (raw.length > 0) {
    const options = requestMediaType(req) === PROTOBUF_MEDIA_TYPE ? decodeProtobufDeleteOptions(raw) : parseJsonObject(raw);
    if (Array.isArray(options.dryRun))
      dryRun ||= isDryRun(new URLSearchParams(options.dryRun.map((v): [string, string] => ['dryRun', String(v)])));
    const preconditions = isPlainObject(options.preconditions) ? options.preconditions : {};
    if (typeof preconditions.uid === 'string' && preconditions.uid !== current.metadata.uid) {
      throw apiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid}`,
        { name: rr.name ?? '', group: rr.group, kind: rr.resource },
      );
    }
    if (typeof preconditions.resourceVersion === 'string' && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw apiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}": Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
        { name: rr.name ?? '', group: rr.group, kind: rr.resource },
      );
    }
  }
  const deleted = dryRun ? current : ctx.store.delete(groupResourceOf(rr), storeNamespace(rr), rr.name ?? '');
  sendJson(res, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: rr.name, group: rr.group, kind: rr.resource, uid: deleted.metadata.uid },
  });
}

export async function serveDeleteCollection(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  await readBody(req);
  const gr = groupResourceOf(rr);
  const dryRun = isDryRun(query);
  const deleted = selectObjects(ctx, rr, query).map((o) =>
    dryRun ? o : ctx.store.delete(gr, o.metadata.namespace ?? '', o.metadata.name),
  );
  sendJson(res, 200, {
    apiVersion: apiVersionOf(rr.group, rr.version),
    kind: `${rr.catalog.kind}List`,
    metadata: { resourceVersion: String(ctx.store.currentResourceVersion()) },
    items: deleted.map((o) => present(o, rr)),
  });
}
