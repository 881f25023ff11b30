// Which of a release's APIs its server marks deprecated, from the release catalog: a beta or GA
// version (alpha versions carry no deprecation in kube-apiserver) that a later release in the catalog
// no longer serves while it still serves the resource in another version. The later release is the
// removal release, "<major>.<minor>" as kube-apiserver writes the k8s.io/removed-release annotation.
import { bundledReleaseNames, catalogEntries, compareReleases, loadRelease, type ReleaseCatalog } from '../../engine/releases/index.js';

/** GVR key "group/version/resource" → the release that removes it ("1.37"). */
export type Deprecations = ReadonlyMap<string, string>;

const cache = new WeakMap<ReleaseCatalog, Deprecations>();

export function deprecationsOf(release: ReleaseCatalog): Deprecations {
  const cached = cache.get(release);
  if (cached) return cached;
  const found = new Map<string, string>();
  for (const next of laterReleases(release)) {
    const served = new Set<string>();
    const resources = new Set<string>();
    for (const e of catalogEntries(next)) {
      served.add(`${e.group}/${e.version}/${e.resource.name}`);
      resources.add(`${e.group}/${e.resource.name}`);
    }
    for (const e of catalogEntries(release)) {
      const key = `${e.group}/${e.version}/${e.resource.name}`;
      if (found.has(key) || /alpha/.test(e.version)) continue;
      if (!served.has(key) && resources.has(`${e.group}/${e.resource.name}`)) found.set(key, minorRelease(next));
    }
  }
  cache.set(release, found);
  return found;
}

/** The catalog's releases after `release`, oldest first (the soonest removal wins). */
function laterReleases(release: ReleaseCatalog): ReleaseCatalog[] {
  return bundledReleaseNames()
    .filter((name) => compareReleases(name, release.release) > 0)
    .map(loadRelease);
}

/** "1.37" for major "1", minor "37+" (a development release). */
function minorRelease(release: ReleaseCatalog): string {
  return `${release.major}.${release.minor.replace(/\+$/, '')}`;
}

/**
 * The `Warning` header value a real server sends with every answer about a deprecated API it serves
 * (kube-apiserver's deprecation warning: code 299, agent "-"), or undefined. The catalog does not say
 * which release deprecated the API, so the text names only the release that removes it, as
 * kube-apiserver words it for an API without a deprecated-in release.
 */
export function deprecationWarning(
  release: ReleaseCatalog,
  group: string,
  version: string,
  resource: string,
  kind: string,
): string | undefined {
  const removed = deprecationsOf(release).get(`${group}/${version}/${resource}`);
  if (removed === undefined) return undefined;
  const groupVersion = group === '' ? version : `${group}/${version}`;
  return `299 - "${groupVersion} ${kind} is deprecated, unavailable in v${removed}+"`;
}
