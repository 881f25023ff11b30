// The OpenAPI v3 index (`GET /openapi/v3`) of the whole server set, as one cluster would answer it
// (rule P8): the handling server's own entries, plus an entry for every group-version only peers
// serve, taken from the index of a peer that serves it (its serverRelativeURL and hash as that peer
// answers them; decide() routes that path to such a peer).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.

/** kube-openapi's handler3 discovery document. */
export interface OpenApiV3Index {
  readonly paths: Readonly<Record<string, { readonly serverRelativeURL: string }>>;
}

export interface ServerIndex {
  readonly server: string;
  /** undefined: the server's index could not be read. */
  readonly index: OpenApiV3Index | undefined;
}

/** What the merge needs of the route table: who serves a group-version (P8's reroute rule). */
export interface GroupVersionRoutes {
  /** The server a request for `/openapi/v3/apis/G/V` would go to is one of these (never H). */
  serversServing(group: string, version: string): readonly string[];
}

/** Parses a body as an OpenAPI v3 index; undefined when it is not one. */
export function parseOpenApiV3Index(text: string): OpenApiV3Index | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const paths = (json as { paths?: unknown } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) return undefined;
  const out: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, entry] of Object.entries(paths as Record<string, unknown>)) {
    const url = (entry as { serverRelativeURL?: unknown } | null)?.serverRelativeURL;
    if (typeof url === 'string') out[key] = { serverRelativeURL: url };
  }
  return { paths: out };
}

/**
 * H's entries unchanged; then, for each `apis/G/V` H does not list and `routes` sends to a peer, the
 * entry of the first such peer (in `indexes` order) whose index lists it. Keys are sorted, as
 * kube-openapi writes them.
 */
export function mergeOpenApiV3Index(handling: string, indexes: readonly ServerIndex[], routes: GroupVersionRoutes): OpenApiV3Index {
  const own = indexes.find((i) => i.server === handling)?.index?.paths ?? {};
  const paths: Record<string, { serverRelativeURL: string }> = { ...own };
  for (const { server, index } of indexes) {
    if (server === handling || !index) continue;
    for (const [key, entry] of Object.entries(index.paths)) {
      if (key in paths) continue;
      const gv = groupVersionOfKey(key);
      if (gv && routes.serversServing(gv.group, gv.version).includes(server)) paths[key] = entry;
    }
  }
  const sorted: Record<string, { serverRelativeURL: string }> = {};
  for (const key of Object.keys(paths).sort()) sorted[key] = paths[key] as { serverRelativeURL: string };
  return { paths: sorted };
}

/** "apis/G/V" → G, V; any other key (api/v1, version, .well-known/…) is H's own. */
function groupVersionOfKey(key: string): { group: string; version: string } | undefined {
  const seg = key.split('/');
  if (seg.length !== 3 || seg[0] !== 'apis' || seg[1] === '' || seg[2] === '') return undefined;
  return { group: seg[1] as string, version: seg[2] as string };
}
