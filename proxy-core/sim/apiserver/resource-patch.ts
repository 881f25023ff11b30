// PATCH in its three JSON forms (merge, strategic-merge as merge, JSON patch) and server-side apply
// (YAML), each turned into a whole object and written through createObject / replaceObject.
import type { IncomingMessage, ServerResponse } from 'node:http';
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import type { ApiContext } from './context.js';
import { apiError, badRequest } from './errors.js';
import { checkTypeMeta, isDryRun, isPlainObject, mergePatch, parseJsonObject, present, readBody, requestMediaType } from './objects.js';
import type { ResourceRequest } from './request-info.js';
import { existingObject, groupResourceOf, respondObject, storeNamespace } from './resource-object.js';
import { createObject, replaceObject } from './resource-write.js';

export async function servePatch(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const contentType = requestMediaType(req);
  const raw = await readBody(req);
  if (contentType === 'application/apply-patch+yaml') return serverSideApply(ctx, req, res, rr, raw, query);
  const current = existingObject(ctx, rr);
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
      if (!Array.isArray(ops))
        throw badRequest('error decoding patch: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
      try {
        patched = fastJsonPatch.applyPatch(structuredClone(currentView), ops as Operation[], true, true).newDocument;
      } catch (err) {
        throw apiError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request: ${(err as Error).message.split('\n')[0]}`,
        );
      }
      break;
    }
    default:
      throw apiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
  }
  if (!isPlainObject(patched)) throw badRequest('the patch produced something that is not an object');
  checkTypeMeta(patched, rr);
  const updated = replaceObject(ctx, rr, current, patched, isDryRun(query));
  respondObject(req, res, 200, updated, rr, query);
}

/**
 * Server-side apply, simplified: create when absent, else merge the applied configuration into the
 * live object. There are no field managers (managedFields) and so no apply conflicts.
 */
function serverSideApply(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  raw: Buffer,
  query: URLSearchParams,
): void {
  let applied: unknown;
  try {
    applied = parseYaml(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  if (!isPlainObject(applied)) throw badRequest('error decoding YAML: the applied configuration is not an object');
  checkTypeMeta(applied, rr);
  if (rr.subresource === undefined && !ctx.store.get(groupResourceOf(rr), storeNamespace(rr), rr.name ?? '')) {
    const created = createObject(
      ctx,
      rr,
      { ...applied, metadata: { ...(isPlainObject(applied.metadata) ? applied.metadata : {}), name: rr.name } },
      isDryRun(query),
    );
    respondObject(req, res, 201, created, rr, query);
    return;
  }
  const current = existingObject(ctx, rr);
  const merged = mergePatch(present(current, rr), applied) as Record<string, unknown>;
  (merged.metadata as Record<string, unknown>).resourceVersion = current.metadata.resourceVersion;
  const updated = replaceObject(ctx, rr, current, merged, isDryRun(query));
  respondObject(req, res, 200, updated, rr, query);
}
