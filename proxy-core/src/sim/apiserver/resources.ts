// CRUD on the shared store for one GVR the release serves: create, get, list, update, patch,
// delete, deletecollection, and the status subresource. Verbs the catalog does not list → 405.
import type { IncomingMessage, ServerResponse } from 'node:http';
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { StoreError, type GroupResource, type KubeObject } from '../store/store.js';
import type { ApiContext } from './context.js';
import { apiVersionOf } from './context.js';
import { apiError, badRequest, fromStoreError, methodNotAllowed, sendJson } from './errors.js';
import { checkTypeMeta, contentTypeOf, isPlainObject, mergePatch, negotiateObjectForm, parseJsonObject, present, randomNameSuffix, readBody, selectorsOf, toTable } from './objects.js';
import type { ResourceRequest } from './request-info.js';
import { servePodLog } from './pod-log.js';
import { serveWatch } from './watch.js';

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

function verbOf(method: string, rr: ResourceRequest, query: URLSearchParams): Verb | undefined {
  const watchParam = query.get('watch');
  const watching = rr.watchPrefix || (watchParam !== null && watchParam !== 'false' && watchParam !== '0');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watching) return 'watch';
      return rr.name === undefined ? 'list' : 'get';
    case 'POST': return rr.name === undefined ? 'create' : undefined;
    case 'PUT': return rr.name === undefined ? undefined : 'update';
    case 'PATCH': return rr.name === undefined ? undefined : 'patch';
    case 'DELETE': return rr.name === undefined ? 'deletecollection' : 'delete';
    default: return undefined;
  }
}

export function groupResourceOf(rr: ResourceRequest): GroupResource {
  return { group: rr.group, resource: rr.resource };
}

/** Namespace under which the object lives in the store ("" for cluster-scoped). */
function storeNamespace(rr: ResourceRequest): string {
  return rr.catalog.namespaced ? (rr.namespace ?? '') : '';
}

export async function serveResource(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): Promise<void> {
  const method = req.method ?? 'GET';
  if (rr.subresource !== undefined) return serveSubresource(ctx, req, res, rr, query, method);
  const verb = verbOf(method, rr, query);
  if (!verb || !rr.catalog.verbs.includes(verb)) throw methodNotAllowed();
  // A watch or list across namespaces needs no namespace; every other verb on a namespaced resource does.
  if (rr.catalog.namespaced && rr.namespace === undefined && verb !== 'list' && verb !== 'watch' && rr.resource !== 'namespaces') throw methodNotAllowed();
  switch (verb) {
    case 'watch': return serveWatch(ctx, req, res, rr, query);
    case 'list': return list(ctx, req, res, rr, query);
    case 'get': return get(ctx, req, res, rr, query);
    case 'create': return create(ctx, req, res, rr);
    case 'update': return update(ctx, req, res, rr);
    case 'patch': return patch(ctx, req, res, rr, query);
    case 'delete': return remove(ctx, req, res, rr);
    case 'deletecollection': return deleteCollection(ctx, req, res, rr, query);
  }
}

async function serveSubresource(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams, method: string): Promise<void> {
  const verbs = rr.catalogSubresource?.verbs ?? [];
  const verb = method === 'GET' ? 'get' : method === 'PUT' ? 'update' : method === 'PATCH' ? 'patch' : method === 'POST' ? 'create' : undefined;
  if (!verb || !verbs.includes(verb)) throw methodNotAllowed();
  switch (rr.subresource) {
    case 'status':
      if (verb === 'get') return get(ctx, req, res, rr, query);
      if (verb === 'update') return update(ctx, req, res, rr);
      if (verb === 'patch') return patch(ctx, req, res, rr, query);
      break;
    case 'log':
      return servePodLog(ctx, req, res, rr, query);
    case 'exec':
    case 'attach':
    case 'portforward':
      throw badRequest('Upgrade request required');
  }
  throw methodNotAllowed();
}

function existing(ctx: ApiContext, rr: ResourceRequest): KubeObject {
  const gr = groupResourceOf(rr);
  const obj = ctx.store.get(gr, storeNamespace(rr), rr.name ?? '');
  if (!obj) throw fromStoreError(new StoreError('NotFound', `${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}" not found`), gr, rr.name ?? '');
  return obj;
}

function respondObject(req: IncomingMessage, res: ServerResponse, code: number, obj: KubeObject, rr: ResourceRequest, query: URLSearchParams): void {
  const form = negotiateObjectForm(req.headers.accept);
  const body = form.kind === 'table' ? toTable([obj], rr, form, query.get('includeObject'), obj.metadata.resourceVersion) : present(obj, rr);
  sendJson(res, code, body, contentTypeOf(form));
}

function get(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
  respondObject(req, res, 200, existing(ctx, rr), rr, query);
}

/** Objects of the request's scope that pass its label and field selectors. */
export function selectObjects(ctx: ApiContext, rr: ResourceRequest, query: URLSearchParams): KubeObject[] {
  const { labelMatches, fieldMatches } = selectorsOf(query);
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

function list(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): void {
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
    metadata.continue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(resourceVersion), start: `${last.metadata.namespace ?? ''}/${last.metadata.name}` })).toString('base64url');
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  if (form.kind === 'table') {
    const table = toTable(items, rr, form, query.get('includeObject'), resourceVersion);
    table.metadata = metadata;
    sendJson(res, 200, table, contentTypeOf(form));
    return;
  }
  sendJson(res, 200, { apiVersion: apiVersionOf(rr.group, rr.version), kind: `${rr.catalog.kind}List`, metadata, items: items.map((o) => present(o, rr)) });
}

function withMetadata(obj: Record<string, unknown>): Record<string, unknown> & { metadata: Record<string, unknown> } {
  return { ...obj, metadata: isPlainObject(obj.metadata) ? { ...obj.metadata } : {} };
}

function hasStatusSubresource(rr: ResourceRequest): boolean {
  return rr.catalog.subresources?.some((s) => s.name === 'status') ?? false;
}

/** Common create path for POST and for server-side apply of an object that does not exist yet. */
function createObject(ctx: ApiContext, rr: ResourceRequest, body: Record<string, unknown>): KubeObject {
  const obj = withMetadata(body);
  const meta = obj.metadata;
  const namespace = storeNamespace(rr);
  if (rr.catalog.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = namespace;
  } else {
    delete meta.namespace;
  }
  if (typeof meta.name !== 'string' || meta.name === '') {
    if (typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = meta.generateName + randomNameSuffix();
    else throw apiError(422, 'Invalid', `${rr.catalog.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, { kind: rr.catalog.kind, causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] });
  }
  if (rr.name !== undefined && meta.name !== rr.name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${rr.name})`);
  for (const serverField of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp', 'managedFields']) delete meta[serverField];
  // Like kube-apiserver's PrepareForCreate: status is the controllers' business, not the creator's.
  if (hasStatusSubresource(rr)) delete obj.status;
  try {
    return ctx.store.create(groupResourceOf(rr), { ...obj, apiVersion: apiVersionOf(rr.group, rr.version), kind: rr.catalog.kind });
  } catch (err) {
    if (err instanceof StoreError) throw fromStoreError(err, groupResourceOf(rr), String(meta.name));
    throw err;
  }
}

async function create(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest): Promise<void> {
  const body = parseJsonObject(await readBody(req));
  checkTypeMeta(body, rr);
  const created = createObject(ctx, rr, body);
  respondObject(req, res, 201, created, rr, new URLSearchParams());
}

/** Writes `next` over the current object: name and namespace pinned to the URL, status rules applied. */
function replaceObject(ctx: ApiContext, rr: ResourceRequest, current: KubeObject, next: Record<string, unknown>): KubeObject {
  const obj = withMetadata(next);
  const meta = obj.metadata;
  if (meta.name !== undefined && meta.name !== rr.name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${rr.name})`);
  if (rr.catalog.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== current.metadata.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.name = current.metadata.name;
  if (current.metadata.namespace !== undefined) meta.namespace = current.metadata.namespace;
  let toStore: Record<string, unknown>;
  if (rr.subresource === 'status') {
    // Only .status changes through the status subresource.
    toStore = { ...current, status: obj.status, metadata: { ...current.metadata, resourceVersion: meta.resourceVersion } };
    if (obj.status === undefined) delete toStore.status;
  } else {
    toStore = obj;
    if (hasStatusSubresource(rr)) {
      if (current.status === undefined) delete toStore.status;
      else toStore.status = current.status;
    }
  }
  const storedMeta = toStore.metadata as Record<string, unknown>;
  const expected = typeof storedMeta.resourceVersion === 'string' ? storedMeta.resourceVersion : undefined;
  try {
    return ctx.store.update(groupResourceOf(rr), { ...toStore, apiVersion: apiVersionOf(rr.group, rr.version), kind: rr.catalog.kind }, expected);
  } catch (err) {
    if (err instanceof StoreError) throw fromStoreError(err, groupResourceOf(rr), rr.name ?? '');
    throw err;
  }
}

async function update(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest): Promise<void> {
  const body = parseJsonObject(await readBody(req));
  checkTypeMeta(body, rr);
  const updated = replaceObject(ctx, rr, existing(ctx, rr), body);
  respondObject(req, res, 200, updated, rr, new URLSearchParams());
}

async function patch(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): Promise<void> {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const raw = await readBody(req);
  if (contentType === 'application/apply-patch+yaml') return serverSideApply(ctx, req, res, rr, raw, query);
  const current = existing(ctx, rr);
  const currentView = present(current, rr);
  let patched: unknown;
  switch (contentType) {
    // Strategic merge patch is applied as a JSON merge patch: the simulated server has no
    // patchMergeKey metadata, so lists are replaced rather than merged by key.
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
      patched = mergePatch(currentView, parseJsonObject(raw));
      break;
    case 'application/json-patch+json': {
      let ops: unknown;
      try {
        ops = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        throw badRequest(`error decoding patch: ${(err as Error).message}`);
      }
      if (!Array.isArray(ops)) throw badRequest('error decoding patch: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
      try {
        patched = fastJsonPatch.applyPatch(structuredClone(currentView), ops as Operation[], true, true).newDocument;
      } catch (err) {
        throw apiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${(err as Error).message.split('\n')[0]}`);
      }
      break;
    }
    default:
      throw apiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
  }
  if (!isPlainObject(patched)) throw badRequest('the patch produced something that is not an object');
  checkTypeMeta(patched, rr);
  const updated = replaceObject(ctx, rr, current, patched);
  respondObject(req, res, 200, updated, rr, query);
}

/**
 * Server-side apply, simplified: create when absent, else merge the applied configuration into the
 * live object. There are no field managers (managedFields) and so no apply conflicts.
 */
function serverSideApply(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, raw: Buffer, query: URLSearchParams): void {
  let applied: unknown;
  try {
    applied = parseYaml(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  if (!isPlainObject(applied)) throw badRequest('error decoding YAML: the applied configuration is not an object');
  checkTypeMeta(applied, rr);
  if (rr.subresource === undefined && !ctx.store.get(groupResourceOf(rr), storeNamespace(rr), rr.name ?? '')) {
    const created = createObject(ctx, rr, { ...applied, metadata: { ...(isPlainObject(applied.metadata) ? applied.metadata : {}), name: rr.name } });
    respondObject(req, res, 201, created, rr, query);
    return;
  }
  const current = existing(ctx, rr);
  const merged = mergePatch(present(current, rr), applied) as Record<string, unknown>;
  (merged.metadata as Record<string, unknown>).resourceVersion = current.metadata.resourceVersion;
  const updated = replaceObject(ctx, rr, current, merged);
  respondObject(req, res, 200, updated, rr, query);
}

async function remove(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest): Promise<void> {
  const raw = await readBody(req);
  const current = existing(ctx, rr);
  if (raw.length > 0) {
    const options = parseJsonObject(raw);
    const preconditions = isPlainObject(options.preconditions) ? options.preconditions : {};
    if (typeof preconditions.uid === 'string' && preconditions.uid !== current.metadata.uid) {
      throw apiError(409, 'Conflict', `Operation cannot be fulfilled on ${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid}`, { name: rr.name ?? '', group: rr.group, kind: rr.resource });
    }
    if (typeof preconditions.resourceVersion === 'string' && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw apiError(409, 'Conflict', `Operation cannot be fulfilled on ${rr.group ? `${rr.resource}.${rr.group}` : rr.resource} "${rr.name}": Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`, { name: rr.name ?? '', group: rr.group, kind: rr.resource });
    }
  }
  const deleted = ctx.store.delete(groupResourceOf(rr), storeNamespace(rr), rr.name ?? '');
  sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: rr.name, group: rr.group, kind: rr.resource, uid: deleted.metadata.uid } });
}

async function deleteCollection(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams): Promise<void> {
  await readBody(req);
  const gr = groupResourceOf(rr);
  const deleted = selectObjects(ctx, rr, query).map((o) => ctx.store.delete(gr, o.metadata.namespace ?? '', o.metadata.name));
  sendJson(res, 200, { apiVersion: apiVersionOf(rr.group, rr.version), kind: `${rr.catalog.kind}List`, metadata: { resourceVersion: String(ctx.store.currentResourceVersion()) }, items: deleted.map((o) => present(o, rr)) });
}
