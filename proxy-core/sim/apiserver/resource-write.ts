// Create (POST) and replace (PUT): the store-level rules both follow — name and namespace checked
// against the URL, server-set metadata dropped, status owned by its subresource. Patch and
// server-side apply (resource-patch.ts) end in the same createObject / replaceObject.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreError, type KubeObject } from '../store/store.js';
import type { ApiContext } from './context.js';
import { apiVersionOf } from './context.js';
import { apiError, badRequest, fromStoreError } from './errors.js';
import { withSecretDefaults, withCreateDefaults } from './create-defaults.js';
import { checkTypeMeta, isDryRun, isPlainObject, parseObjectBody, randomNameSuffix, readBody } from './objects.js';
import type { ResourceRequest } from './request-info.js';
import { existingObject, groupResourceOf, respondObject, storeNamespace } from './resource-object.js';

function withMetadata(obj: Record<string, unknown>): Record<string, unknown> & { metadata: Record<string, unknown> } {
  return { ...obj, metadata: isPlainObject(obj.metadata) ? { ...obj.metadata } : {} };
}

function hasStatusSubresource(rr: ResourceRequest): boolean {
  return rr.catalog.subresources?.some((s) => s.name === 'status') ?? false;
}

/** Common create path for POST and for server-side apply of an object that does not exist yet. */
export function createObject(ctx: ApiContext, rr: ResourceRequest, body: Record<string, unknown>, dryRun = false): KubeObject {
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
    else
      throw apiError(422, 'Invalid', `${rr.catalog.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, {
        kind: rr.catalog.kind,
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
      });
  }
  if (rr.name !== undefined && meta.name !== rr.name)
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${rr.name})`);
  for (const serverField of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp', 'managedFields'])
    delete meta[serverField];
  // Like kube-apiserver's PrepareForCreate: status is the controllers' business, not the creator's.
  if (hasStatusSubresource(rr)) delete obj.status;
  const stored = withCreateDefaults(ctx, rr, obj);
  try {
    return ctx.store.create(
      groupResourceOf(rr),
      { ...stored, apiVersion: apiVersionOf(rr.group, rr.version), kind: rr.catalog.kind },
      dryRun,
    );
  } catch (err) {
    if (err instanceof StoreError) throw fromStoreError(err, groupResourceOf(rr), String(meta.name));
    throw err;
  }
}

export async function serveCreate(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const body = parseObjectBody(req, await readBody(req));
  checkTypeMeta(body, rr);
  const created = createObject(ctx, rr, body, isDryRun(query));
  respondObject(req, res, 201, created, rr, new URLSearchParams());
}

/** Writes `next` over the current object: name and namespace pinned to the URL, status rules applied. */
export function replaceObject(
  ctx: ApiContext,
  rr: ResourceRequest,
  current: KubeObject,
  next: Record<string, unknown>,
  dryRun = false,
): KubeObject {
  const obj = rr.group === '' && rr.resource === 'secrets' ? withSecretDefaults(withMetadata(next)) : withMetadata(next);
  const meta = obj.metadata;
  if (meta.name !== undefined && meta.name !== rr.name)
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${rr.name})`);
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
    return ctx.store.update(
      groupResourceOf(rr),
      { ...toStore, apiVersion: apiVersionOf(rr.group, rr.version), kind: rr.catalog.kind },
      expected,
      dryRun,
    );
  } catch (err) {
    if (err instanceof StoreError) throw fromStoreError(err, groupResourceOf(rr), rr.name ?? '');
    throw err;
  }
}

export async function serveUpdate(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const body = parseObjectBody(req, await readBody(req));
  checkTypeMeta(body, rr);
  const updated = replaceObject(ctx, rr, existingObject(ctx, rr), body, isDryRun(query));
  respondObject(req, res, 200, updated, rr, new URLSearchParams());
}
