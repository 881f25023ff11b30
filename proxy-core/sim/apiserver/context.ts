// What every handler of one simulated apiserver sees: its name, its release, the shared store.
import type { CatalogResource, ReleaseCatalog } from '../../engine/releases/index.js';
import type { ObjectStore } from '../store/store.js';

export interface ApiContext {
  readonly serverName: string;
  readonly release: ReleaseCatalog;
  readonly served: ServedIndex;
  readonly store: ObjectStore;
  /** host:port this server listens on, for legacy discovery's serverAddressByClientCIDRs. */
  readonly serverAddress: string;
  isDraining(): boolean;
  /** Long-running responses (watch, log follow) register how to end them when the server drains. */
  readonly longRunning: Set<() => void>;
}

/** Lookup of what a release serves, built once per catalog. */
export interface ServedIndex {
  resource(group: string, version: string, resource: string): CatalogResource | undefined;
  groupVersion(group: string, version: string): boolean;
  group(group: string): boolean;
  /** The first version of `group` serving `resource`, if any. */
  anyVersion(group: string, resource: string): string | undefined;
}

const indexes = new WeakMap<ReleaseCatalog, ServedIndex>();

export function servedIndex(release: ReleaseCatalog): ServedIndex {
  const cached = indexes.get(release);
  if (cached) return cached;
  const byGv = new Map<string, Map<string, CatalogResource>>();
  const groups = new Set<string>();
  for (const g of release.groups) {
    groups.add(g.name);
    for (const v of g.versions) byGv.set(`${g.name}/${v.version}`, new Map(v.resources.map((r) => [r.name, r])));
  }
  const index: ServedIndex = {
    resource: (group, version, resource) => byGv.get(`${group}/${version}`)?.get(resource),
    groupVersion: (group, version) => byGv.has(`${group}/${version}`),
    group: (group) => groups.has(group),
    anyVersion: (group, resource) =>
      release.groups.find((g) => g.name === group)?.versions.find((v) => v.resources.some((r) => r.name === resource))?.version,
  };
  indexes.set(release, index);
  return index;
}

/** apiVersion of a group/version: "v1" for core, "apps/v1" otherwise. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
