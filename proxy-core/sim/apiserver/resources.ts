// CRUD on the shared store for one GVR the release serves: create, get, list, update, patch,
// delete, deletecollection, and the status subresource. Verbs the catalog does not list → 405.
// This file picks the verb; each verb family is served by a file of its own (resource-*.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from './context.js';
import { deprecationWarning } from './deprecations.js';
import { badRequest, methodNotAllowed } from './errors.js';
import type { ResourceRequest } from './request-info.js';
import { servePodLog } from './pod-log.js';
import { serveDelete, serveDeleteCollection } from './resource-delete.js';
import { servePatch } from './resource-patch.js';
import { serveGet, serveList } from './resource-read.js';
import { serveCreate, serveUpdate } from './resource-write.js';
import { serveWatch } from './watch.js';

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export function verbOf(method: string, rr: Pick<ResourceRequest, 'name' | 'watchPrefix'>, query: URLSearchParams): Verb | undefined {
  const watchParam = query.get('watch');
  const watching = rr.watchPrefix || (watchParam !== null && watchParam !== 'false' && watchParam !== '0');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watching) return 'watch';
      return rr.name === undefined ? 'list' : 'get';
    case 'POST':
      return rr.name === undefined ? 'create' : undefined;
    case 'PUT':
      return rr.name === undefined ? undefined : 'update';
    case 'PATCH':
      return rr.name === undefined ? undefined : 'patch';
    case 'DELETE':
      return rr.name === undefined ? 'deletecollection' : 'delete';
    default:
      return undefined;
  }
}

export async function serveResource(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const method = req.method ?? 'GET';
  // Every answer about a deprecated API carries the warning, errors included, as kube-apiserver's do.
  const warning = deprecationWarning(ctx.release, rr.group, rr.version, rr.resource, rr.catalog.kind);
  if (warning) res.setHeader('Warning', warning);
  if (rr.subresource !== undefined) return serveSubresource(ctx, req, res, rr, query, method);
  const verb = verbOf(method, rr, query);
  if (!verb || !rr.catalog.verbs.includes(verb)) throw methodNotAllowed();
  // A watch or list across namespaces needs no namespace; every other verb on a namespaced resource does.
  if (rr.catalog.namespaced && rr.namespace === undefined && verb !== 'list' && verb !== 'watch' && rr.resource !== 'namespaces')
    throw methodNotAllowed();
  switch (verb) {
    case 'watch':
      return serveWatch(ctx, req, res, rr, query);
    case 'list':
      return serveList(ctx, req, res, rr, query);
    case 'get':
      return serveGet(ctx, req, res, rr, query);
    case 'create':
      return serveCreate(ctx, req, res, rr, query);
    case 'update':
      return serveUpdate(ctx, req, res, rr, query);
    case 'patch':
      return servePatch(ctx, req, res, rr, query);
    case 'delete':
      return serveDelete(ctx, req, res, rr, query);
    case 'deletecollection':
      return serveDeleteCollection(ctx, req, res, rr, query);
  }
}

async function serveSubresource(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
  method: string,
): Promise<void> {
  const verbs = rr.catalogSubresource?.verbs ?? [];
  const verb =
    method === 'GET' ? 'get' : method === 'PUT' ? 'update' : method === 'PATCH' ? 'patch' : method === 'POST' ? 'create' : undefined;
  if (!verb || !verbs.includes(verb)) throw methodNotAllowed();
  switch (rr.subresource) {
    case 'status':
      if (verb === 'get') return serveGet(ctx, req, res, rr, query);
      if (verb === 'update') return serveUpdate(ctx, req, res, rr, query);
      if (verb === 'patch') return servePatch(ctx, req, res, rr, query);
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
