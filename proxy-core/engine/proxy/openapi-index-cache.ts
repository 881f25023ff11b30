// The merged OpenAPI v3 index the port answers at `/openapi/v3` (rule P8), per handling server. Each
// server's own index is read with the core's own client (as discovery is) when first asked after a
// discovery change, and at most every INDEX_MAX_AGE_MS otherwise: a CRD's schema can change its
// document's hash without changing discovery.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { ServerSet } from '../cluster/server-set.js';
import { discoveryETag } from '../discovery/etag.js';
import { mergeOpenApiV3Index, parseOpenApiV3Index, type ServerIndex } from '../discovery/openapi-index.js';
import type { RouteState } from './route-state.js';

/** How long a read index is trusted when discovery did not change: the freshness issue 32 asks for. */
export const INDEX_MAX_AGE_MS = 2_000;

export interface MergedOpenApiIndex {
  readonly json: string;
  readonly etag: string;
}

interface Entry {
  readonly generation: number;
  readonly readAt: number;
  readonly merged: Promise<MergedOpenApiIndex>;
}

export class OpenApiIndexCache {
  private readonly byHandling = new Map<string, Entry>();

  constructor(
    private readonly servers: ServerSet,
    private readonly state: RouteState,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** The merged index as `handling` answers it; rejects when `handling`'s own index cannot be read. */
  merged(handling: string): Promise<MergedOpenApiIndex> {
    const cached = this.byHandling.get(handling);
    const at = this.now();
    if (cached && cached.generation === this.state.generation && at - cached.readAt < INDEX_MAX_AGE_MS) return cached.merged;
    const merged = this.build(handling);
    // A failure is kept as long as a success would be: a server without an index is not read per request.
    merged.catch(() => undefined);
    this.byHandling.set(handling, { generation: this.state.generation, readAt: at, merged });
    return merged;
  }

  private async build(handling: string): Promise<MergedOpenApiIndex> {
    const table = this.state.table;
    const indexes: ServerIndex[] = await Promise.all(
      this.servers.known().map(async ({ config, reader }): Promise<ServerIndex> => {
        if (!reader) return { server: config.name, index: undefined };
        const res = await reader.get('/openapi/v3', { accept: 'application/json' }).catch(() => undefined);
        return { server: config.name, index: res?.status === 200 ? parseOpenApiV3Index(res.body) : undefined };
      }),
    );
    if (!indexes.some((i) => i.server === handling && i.index)) throw new Error(`the OpenAPI v3 index of ${handling} could not be read`);
    const doc = mergeOpenApiV3Index(handling, indexes, {
      // As decide() routes /openapi/v3/apis/G/V: to a peer only when H lacks G/V and it is no CRD or aggregated API (R6).
      serversServing(group, version) {
        const servers = table.serversForGroupVersion(group, version);
        if (servers.includes(handling) || table.excludes(group, version)) return [];
        return servers;
      },
    });
    const json = JSON.stringify(doc);
    return { json, etag: discoveryETag(json) };
  }
}
