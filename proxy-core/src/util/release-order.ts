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
