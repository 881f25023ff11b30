// Comparing two aggregated discovery documents (APIGroupDiscoveryList) the way an operator would:
// which group/version/resources each lists, and for those both list, what differs about them
// (kind, scope, verbs, short names, categories, subresources), the order of a group's versions
// (the first is the preferred one) and the order of the groups.
export const DISCOVERY_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface Resource {
  resource: string;
  responseKind?: { kind?: string };
  scope?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  singularResource?: string;
  subresources?: { subresource: string }[];
}
interface Doc {
  items?: { metadata?: { name?: string }; versions?: { version: string; freshness?: string; resources?: Resource[] }[] }[];
}

function entries(doc: unknown): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const g of (doc as Doc).items ?? []) {
    for (const v of g.versions ?? [])
      for (const r of v.resources ?? []) out.set(`${g.metadata?.name ? `${g.metadata.name}/` : ''}${v.version}/${r.resource}`, r);
  }
  return out;
}

export function aggregatedGvrs(doc: unknown): Set<string> {
  return new Set(entries(doc).keys());
}

export interface DiscoveryDiff {
  readonly onlyLeft: string[];
  readonly onlyRight: string[];
  /** Differences of shape, not of content (order), and per-resource fields. */
  readonly details: string[];
  readonly summary: string;
}

const sorted = (xs: readonly string[] | undefined) => JSON.stringify([...(xs ?? [])].sort());

export function compareDiscovery(left: unknown, right: unknown, names: [string, string] = ['merged', 'own']): DiscoveryDiff {
  const l = entries(left);
  const r = entries(right);
  const onlyLeft = [...l.keys()].filter((k) => !r.has(k)).sort();
  const onlyRight = [...r.keys()].filter((k) => !l.has(k)).sort();
  const details: string[] = [];
  for (const [key, a] of l) {
    const b = r.get(key);
    if (!b) continue;
    const fields: [string, unknown, unknown][] = [
      ['kind', a.responseKind?.kind, b.responseKind?.kind],
      ['scope', a.scope, b.scope],
      ['verbs', sorted(a.verbs), sorted(b.verbs)],
      ['shortNames', sorted(a.shortNames), sorted(b.shortNames)],
      ['categories', sorted(a.categories), sorted(b.categories)],
      ['singularResource', a.singularResource, b.singularResource],
      ['subresources', sorted(a.subresources?.map((s) => s.subresource)), sorted(b.subresources?.map((s) => s.subresource))],
    ];
    for (const [f, x, y] of fields)
      if (JSON.stringify(x) !== JSON.stringify(y)) details.push(`${key}: ${f} ${names[0]} ${String(x)} vs ${names[1]} ${String(y)}`);
  }
  const groupOrder = (doc: unknown) => ((doc as Doc).items ?? []).map((g) => g.metadata?.name ?? '');
  const versionOrder = (doc: unknown) =>
    new Map(((doc as Doc).items ?? []).map((g) => [g.metadata?.name ?? '', (g.versions ?? []).map((v) => v.version).join(',')]));
  if (groupOrder(left).join() !== groupOrder(right).join())
    details.push(`group order differs: ${names[0]} [${groupOrder(left).join(', ')}] vs ${names[1]} [${groupOrder(right).join(', ')}]`);
  const lv = versionOrder(left);
  for (const [g, order] of versionOrder(right))
    if (lv.has(g) && lv.get(g) !== order) details.push(`${g || 'core'} version order: ${names[0]} ${lv.get(g)} vs ${names[1]} ${order}`);
  const summary = `${l.size} vs ${r.size} group/version/resources; only in ${names[0]}: ${onlyLeft.length ? onlyLeft.join(', ') : 'none'}; only in ${names[1]}: ${onlyRight.length ? onlyRight.join(', ') : 'none'}; ${details.length} other difference(s)`;
  return { onlyLeft, onlyRight, details, summary };
}
