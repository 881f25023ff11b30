// The routing state derived from the server set: the route table (GVR → servers), and the
// peer-aggregated /apis document with its ETag. Both are rebuilt only when a server's discovery
// changes, never per request.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { discoveryETag } from '../discovery/etag.js';
import { mergeDiscovery } from '../discovery/merge.js';
import { mergeLegacyGroupList } from '../discovery/legacy-merge.js';
import type { APIGroupDiscoveryList } from '../discovery/types.js';
import type { VersionOrder } from '../../contract/version-priority.js';
import type { ServerSet } from '../cluster/server-set.js';
import { buildRouteTable, type RouteTable } from '../routing/route-table.js';

export interface MergedDiscovery {
  readonly doc: APIGroupDiscoveryList;
  readonly json: string;
  readonly etag: string;
}

/** The legacy `/apis` of the whole server set (rule P8), rendered once per discovery change. */
export interface MergedLegacyDiscovery {
  readonly json: string;
  readonly etag: string;
}

export class RouteState {
  /** The current route table: replaced whole on every discovery change (a field, not a getter: the request path reads it). */
  table: RouteTable;
  /** Per handling server: the exclusions of R6 are the handling server's own. */
  private readonly mergedCache = new Map<string, MergedDiscovery>();
  private legacyCache: MergedLegacyDiscovery | undefined;
  /** Bumped on every discovery change; lets hosts notice a new table cheaply. */
  generation = 0;

  constructor(
    private readonly servers: ServerSet,
    /** Each group's versions in the merged /apis: version priority (P9) or D2's order (`--faithful`). */
    private readonly versionOrder: VersionOrder = 'priority',
  ) {
    this.table = this.build();
    servers.on('discovery', () => this.invalidate());
  }

  invalidate(): void {
    this.table = this.build();
    this.mergedCache.clear();
    this.legacyCache = undefined;
    this.generation++;
  }

  /**
   * The peer-aggregated /apis as `handling` answers it (rule D2, P6): its own list in full, and each
   * peer's list without the CRD and aggregated group-versions `handling` knows of (R6), merged in
   * ascending server name order; each group's versions in version priority unless faithful (P9).
   */
  merged(handling: string): MergedDiscovery {
    let cached = this.mergedCache.get(handling);
    if (!cached) {
      const excluded = new Set(this.servers.discovery(handling)?.excludedGroupVersions ?? []);
      const lists = this.servers.names().flatMap((name) => {
        const d = this.servers.discovery(name);
        if (!d) return [];
        return [{ server: name, doc: name === handling ? d.apis : withoutGroupVersions(d.apis, excluded) }];
      });
      const doc = lists.length === 0 ? emptyList() : mergeDiscovery(lists, { versionOrder: this.versionOrder });
      const json = JSON.stringify(doc);
      cached = { doc, json, etag: discoveryETag(json) };
      this.mergedCache.set(handling, cached);
    }
    return cached;
  }

  /**
   * The legacy `/apis` APIGroupList as one cluster answers it (rule P8): the same for every handling
   * server, from every server's own document (CRD and aggregated groups are listed by every server).
   */
  mergedLegacy(): MergedLegacyDiscovery {
    if (!this.legacyCache) {
      const servers = this.servers.names().flatMap((name) => {
        const d = this.servers.discovery(name);
        return d ? [{ server: name, release: this.servers.status(name)?.gitVersion, doc: d.apis }] : [];
      });
      const json = JSON.stringify(mergeLegacyGroupList(servers));
      this.legacyCache = { json, etag: discoveryETag(json) };
    }
    return this.legacyCache;
  }

  private build(): RouteTable {
    return buildRouteTable(
      this.servers.names().map((name) => {
        const d = this.servers.discovery(name);
        return { name, gvrs: d?.gvrs, excludedGroupVersions: d?.excludedGroupVersions ?? [] };
      }),
    );
  }
}

function emptyList(): APIGroupDiscoveryList {
  return { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] };
}

function withoutGroupVersions(doc: APIGroupDiscoveryList, excluded: ReadonlySet<string>): APIGroupDiscoveryList {
  if (excluded.size === 0) return doc;
  const items = doc.items
    .map((g) => ({ ...g, versions: g.versions.filter((v) => !excluded.has(`${g.metadata?.name ?? ''}/${v.version}`)) }))
    .filter((g) => g.versions.length > 0);
  return { ...doc, items };
}
