// Resource-request classification, as requestinfo.go does it: /api/V/… and /apis/G/V/…, the
// `watch` path prefix, namespaces/{ns}/…, and namespaces/{name}/status|finalize.
import type { CatalogResource, CatalogSubresource } from '../../engine/releases/index.js';
import type { ServedIndex } from './context.js';
import { notFoundError } from './errors.js';

export interface ResourceRequest {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  /** The request used the /watch/ path prefix. */
  readonly watchPrefix: boolean;
  readonly catalog: CatalogResource;
  readonly catalogSubresource: CatalogSubresource | undefined;
}

/** Path segments (already split, URL-decoded) to a resource request; undefined = not a resource path. */
export function parseResourcePath(segments: readonly string[]): Omit<ResourceRequest, 'catalog' | 'catalogSubresource'> | undefined {
  let rest: string[];
  let group = '';
  let version: string;
  if (segments[0] === 'api' && segments.length >= 3) {
    version = segments[1] as string;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] as string;
    version = segments[2] as string;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    const isNamespaceItself = rest.length === 2 || (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'));
    if (!isNamespaceItself) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  return { group, version, resource: rest[0] as string, namespace, name: rest[1], subresource: rest[2], watchPrefix };
}

/** Resolves a resource request against what the release serves; 404 Status for anything it lacks. */
export function resolveResourceRequest(served: ServedIndex, segments: readonly string[]): ResourceRequest | undefined {
  const parsed = parseResourcePath(segments);
  if (!parsed) return undefined;
  const catalog = served.resource(parsed.group, parsed.version, parsed.resource);
  if (!catalog) throw notFoundError();
  if (parsed.namespace !== undefined && !catalog.namespaced) throw notFoundError();
  if (catalog.namespaced && parsed.namespace === undefined && parsed.name !== undefined && parsed.resource !== 'namespaces')
    throw notFoundError();
  let catalogSubresource: CatalogSubresource | undefined;
  if (parsed.subresource !== undefined) {
    catalogSubresource = catalog.subresources?.find((s) => s.name === parsed.subresource);
    if (!catalogSubresource) throw notFoundError();
  }
  return { ...parsed, catalog, catalogSubresource };
}
