// The order of Kubernetes releases by name or gitVersion, shared by the catalog (releases/) and the
// merged discovery documents (discovery/), which must not depend on the catalog.

/** Orders v1.36-dev before v1.37-dev before v1.37.1; unknown shapes last, by name. */
export function compareReleases(a: string, b: string): number {
  const pa = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(a);
  const pb = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(b);
  if (pa && pb) {
    for (let i = 1; i <= 3; i++) {
      const d = Number(pa[i] ?? 0) - Number(pb[i] ?? 0);
      if (d !== 0) return d;
    }
  } else if (pa || pb) return pa ? -1 : 1;
  return a.localeCompare(b);
}

/**
 * Servers newest release first, for merges where the newest server's definition wins: a server of
 * unknown release counts as the oldest; ties by server name, so the order never depends on arrival.
 */
export function newestServerFirst(a: { readonly release?: string | undefined; readonly server: string }, b: typeof a): number {
  if (a.release === undefined || b.release === undefined) {
    if (a.release !== b.release) return a.release === undefined ? 1 : -1;
  } else {
    const byRelease = compareReleases(b.release, a.release);
    if (byRelease !== 0) return byRelease;
  }
  return a.server < b.server ? -1 : a.server > b.server ? 1 : 0;
}
