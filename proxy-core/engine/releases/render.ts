// Renders a release catalog as the discovery documents a kube-apiserver of that release serves:
// aggregated (apidiscovery.k8s.io v2 / v2beta1) for /api and /apis, and the legacy forms
// (APIVersions, APIGroupList, APIResourceList).
import type { APIGroupDiscovery, APIGroupDiscoveryList, APIResourceDiscovery } from '../discovery/types.js';
import type { CatalogGroup, CatalogResource, ReleaseCatalog } from './model.js';

type DiscoveryVersion = 'v2' | 'v2beta1';

/** `/apis` (every non-core group) or `/api` (the core group) as an aggregated document. */
export function aggregatedDiscovery(
  catalog: ReleaseCatalog,
  root: 'api' | 'apis',
  version: DiscoveryVersion = 'v2',
): APIGroupDiscoveryList {
  const groups = catalog.groups.filter((g) => (root === 'api' ? g.name === '' : g.name !== ''));
  return {
    apiVersion: `apidiscovery.k8s.io/${version}`,
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: groups.map(aggregatedGroup),
  };
}

function aggregatedGroup(group: CatalogGroup): APIGroupDiscovery {
  return {
    metadata: group.name === '' ? {} : { name: group.name },
    versions: group.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map(aggregatedResource),
      freshness: 'Current',
    })),
  };
}

function aggregatedResource(r: CatalogResource): APIResourceDiscovery {
  const out: APIResourceDiscovery = {
    resource: r.name,
    responseKind: { group: r.responseKind?.group ?? '', version: r.responseKind?.version ?? '', kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: r.verbs,
  };
  if (r.shortNames) out.shortNames = r.shortNames;
  if (r.categories) out.categories = r.categories;
  if (r.subresources) {
    out.subresources = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.responseKind?.group ?? '', version: s.responseKind?.version ?? '', kind: s.responseKind?.kind ?? r.kind },
      verbs: s.verbs,
    }));
  }
  return out;
}

/** Legacy `/api`: the core versions. */
export function legacyApiVersions(catalog: ReleaseCatalog, serverAddress: string) {
  const core = catalog.groups.find((g) => g.name === '');
  return {
    kind: 'APIVersions',
    versions: core ? core.versions.map((v) => v.version) : [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: CatalogGroup) {
  const versions = group.versions.map((v) => ({ groupVersion: `${group.name}/${v.version}`, version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** Legacy `/apis`: every non-core group with its versions, the first listed preferred. */
export function legacyApiGroupList(catalog: ReleaseCatalog) {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: catalog.groups.filter((g) => g.name !== '').map(apiGroup) };
}

/** Legacy `/apis/G`, or undefined when the release does not serve G. */
export function legacyApiGroup(catalog: ReleaseCatalog, group: string) {
  const g = catalog.groups.find((x) => x.name === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : undefined;
}

/** Legacy `/api/v1` or `/apis/G/V`, or undefined when the release does not serve that group-version. */
export function legacyResourceList(catalog: ReleaseCatalog, group: string, version: string) {
  const v = catalog.groups.find((g) => g.name === group)?.versions.find((x) => x.version === version);
  if (!v) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const r of v.resources) {
    const entry: Record<string, unknown> = { name: r.name, singularName: r.singular, namespaced: r.namespaced };
    if (r.responseKind) Object.assign(entry, { group: r.responseKind.group ?? '', version: r.responseKind.version ?? '' });
    Object.assign(entry, { kind: r.kind, verbs: r.verbs });
    if (r.shortNames) entry.shortNames = r.shortNames;
    if (r.categories) entry.categories = r.categories;
    resources.push(entry);
    for (const s of r.subresources ?? []) {
      const sub: Record<string, unknown> = { name: `${r.name}/${s.name}`, singularName: '', namespaced: r.namespaced };
      if (s.responseKind?.group || s.responseKind?.version)
        Object.assign(sub, { group: s.responseKind.group ?? '', version: s.responseKind.version ?? '' });
      Object.assign(sub, { kind: s.responseKind?.kind ?? r.kind, verbs: s.verbs });
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}
