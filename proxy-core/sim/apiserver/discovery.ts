// Discovery as a kube-apiserver of the release serves it: aggregated v2 for /api and /apis (ETag,
// 304, Vary), legacy APIVersions/APIGroupList/APIGroup/APIResourceList, 404 for what it lacks.
// Only v2 is offered (v1.33+ removed v2beta1), so a v2beta1 ask falls through to the next range.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MEDIA } from '../../engine/discovery/types.js';
import {
  aggregatedDiscovery,
  legacyApiGroup,
  legacyApiGroupList,
  legacyApiVersions,
  legacyResourceList,
} from '../../engine/releases/index.js';
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import type { ApiContext } from './context.js';
import { apiError, notFoundError, sendJson } from './errors.js';
import { acceptsPlainJson, parseAccept } from './negotiate.js';

interface RenderedDocument {
  readonly text: string;
  readonly etag: string;
}

const aggregatedCache = new WeakMap<ReleaseCatalog, Map<'api' | 'apis', RenderedDocument>>();

function renderedAggregated(release: ReleaseCatalog, root: 'api' | 'apis'): RenderedDocument {
  let perRoot = aggregatedCache.get(release);
  if (!perRoot) aggregatedCache.set(release, (perRoot = new Map()));
  let doc = perRoot.get(root);
  if (!doc) {
    const json = JSON.stringify(aggregatedDiscovery(release, root, 'v2'));
    // etag.go: quoted, uppercase hex SHA-512 of the serialized list.
    doc = { text: json + '\n', etag: `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"` };
    perRoot.set(root, doc);
  }
  return doc;
}

type RootForm = 'aggregated-v2' | 'legacy';

/** Picks the form for /api or /apis from the Accept list; undefined = nothing acceptable (406). */
export function negotiateRoot(accept: string | undefined): RootForm | undefined {
  for (const range of parseAccept(accept)) {
    const isDiscovery = range.params.g === 'apidiscovery.k8s.io' && range.params.as === 'APIGroupDiscoveryList';
    if (isDiscovery) {
      // JSON v2 only; protobuf and v2beta1 are not offered by this server.
      if (range.type === 'application' && range.subtype === 'json' && range.params.v === 'v2') return 'aggregated-v2';
      continue;
    }
    if (acceptsPlainJson(range)) return 'legacy';
  }
  return undefined;
}

export function serveDiscoveryRoot(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, root: 'api' | 'apis'): void {
  const form = negotiateRoot(req.headers.accept);
  if (!form) {
    throw apiError(406, 'NotAcceptable', `only the following media types are accepted: application/json, ${MEDIA.v2Json}`);
  }
  if (form === 'aggregated-v2') {
    const doc = renderedAggregated(ctx.release, root);
    const headers = { 'Content-Type': MEDIA.v2Json, Vary: 'Accept', ETag: doc.etag, 'Cache-Control': 'public' };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': Buffer.byteLength(doc.text) });
    res.end(req.method === 'HEAD' ? undefined : doc.text);
    return;
  }
  const body = root === 'api' ? legacyApiVersions(ctx.release, ctx.serverAddress) : legacyApiGroupList(ctx.release);
  sendJson(res, 200, body, 'application/json', { Vary: 'Accept' });
}

/** `/apis/G` */
export function serveLegacyGroup(ctx: ApiContext, res: ServerResponse, group: string): void {
  const doc = legacyApiGroup(ctx.release, group);
  if (!doc) throw notFoundError();
  sendJson(res, 200, doc);
}

/** `/api/v1` or `/apis/G/V` */
export function serveLegacyResourceList(ctx: ApiContext, res: ServerResponse, group: string, version: string): void {
  const doc = legacyResourceList(ctx.release, group, version);
  if (!doc) throw notFoundError();
  sendJson(res, 200, doc);
}
