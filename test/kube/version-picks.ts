// Which version of a resource kubectl asks for (issue 45, rule P9): the resources an aggregated /apis
// lists in more than one version, and the group-version of the request a `kubectl get -v=6` run made,
// read from its request log lines.

interface Doc {
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: { resource: string; verbs?: string[] }[] }[] }[];
}

/** "resource.group" → its versions in the document's order, for listable resources of named groups listed in more than one. */
export function multiVersionResources(doc: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of (doc as Doc).items ?? []) {
    if (!g.metadata?.name) continue;
    for (const v of g.versions ?? [])
      for (const r of v.resources ?? []) {
        if (!r.verbs?.includes('list') || r.resource.includes('/')) continue;
        const key = `${r.resource}.${g.metadata.name}`;
        out.set(key, [...(out.get(key) ?? []), v.version]);
      }
  }
  return new Map([...out].filter(([, versions]) => versions.length > 1));
}

/** The version of `group`'s `resource` a kubectl run with -v=6 requested, from its log (stderr). */
export function versionRequested(log: string, resourceDotGroup: string): string | undefined {
  const [resource, ...rest] = resourceDotGroup.split('.');
  const group = rest.join('.').replace(/\./g, '\\.');
  const pattern = new RegExp(`/apis/${group}/([^/?"\\s]+)/(?:namespaces/[^/]+/)?${resource}(?:[/?"\\s]|$)`);
  for (const line of log.split('\n')) {
    const m = pattern.exec(line);
    if (m) return m[1];
  }
  return undefined;
}
