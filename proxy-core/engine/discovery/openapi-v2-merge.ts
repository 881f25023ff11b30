// The OpenAPI v2 document (`GET /openapi/v2`) of the whole server set, as one cluster whose every
// server served the union would answer it (rule P8): the paths, definitions, parameters, responses
// and security definitions of every server; where two servers define one name differently, the
// newest release's definition wins (an older server's is what the newer one replaced). Everything
// else (swagger, info, security) is the newest server's. This file merges the JSON form;
// openapi-v2-protobuf.ts merges the protobuf form by the same rule, so both say the same.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { newestServerFirst } from '../util/release-order.js';

/** One server's document (JSON text, protobuf bytes, …) and the release it runs. */
export interface ServerOpenApiV2<T> {
  readonly server: string;
  /** The server's gitVersion ("v1.37.2"); undefined when its /version was never read. */
  readonly release: string | undefined;
  readonly doc: T;
}

/** The top-level members of a v2 document that are maps from a name to a definition: merged by name. */
export const NAMED_MAPS = ['paths', 'definitions', 'parameters', 'responses', 'securityDefinitions'] as const;

/** Newest release first (util/release-order.ts). */
export function newestFirst<T>(servers: readonly ServerOpenApiV2<T>[]): ServerOpenApiV2<T>[] {
  return [...servers].sort(newestServerFirst);
}

/** A parsed v2 document: an object; the named maps are objects when present. */
export type OpenApiV2Json = Record<string, unknown>;

/** Parses a body as an OpenAPI v2 document; undefined when it is not one (no object, no `swagger`). */
export function parseOpenApiV2Json(text: string): OpenApiV2Json | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  return typeof (json as { swagger?: unknown }).swagger === 'string' ? (json as OpenApiV2Json) : undefined;
}

/**
 * One document over every server: the newest server's, with each named map replaced by the union of
 * every server's (the newest server defining a name wins), its names sorted as kube-openapi writes
 * them (Go's encoding/json sorts map keys). Member order is the newest document's.
 */
export function mergeOpenApiV2Json(servers: readonly ServerOpenApiV2<OpenApiV2Json>[]): OpenApiV2Json {
  const ordered = newestFirst(servers);
  const newest = ordered[0];
  if (!newest) throw new Error('no OpenAPI v2 document to merge');
  const merged: OpenApiV2Json = { ...newest.doc };
  for (const member of NAMED_MAPS) {
    const union = new Map<string, unknown>();
    for (const { doc } of ordered) {
      const map = doc[member];
      if (typeof map !== 'object' || map === null) continue;
      for (const [name, value] of Object.entries(map)) if (!union.has(name)) union.set(name, value);
    }
    if (union.size === 0 && !(member in newest.doc)) continue;
    const sorted: Record<string, unknown> = {};
    for (const name of [...union.keys()].sort(byBytes)) sorted[name] = union.get(name);
    merged[member] = sorted;
  }
  return merged;
}

/** Go's string order (bytes); for the ASCII names of OpenAPI documents, UTF-16 code unit order is the same. */
export function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
