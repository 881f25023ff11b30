// Peer-aggregated discovery (spec D2): one /apis document merged across servers, as kube-apiserver's
// peer-aggregated handler builds it. Lists are visited in ascending server name; groups, versions
// and resources are unioned by name; the first-visited entry wins, except verbs (sorted union) and
// subresources (union by name, later-visited wins, sorted); order follows an order-preserving merge.
import type { APIGroupDiscovery, APIGroupDiscoveryList, APIResourceDiscovery, APISubresourceDiscovery, APIVersionDiscovery } from './types.js';

export interface ServerDocument {
  readonly server: string;
  readonly doc: APIGroupDiscoveryList;
}

export function mergeDiscovery(lists: readonly ServerDocument[]): APIGroupDiscoveryList {
  if (lists.length === 1) return (lists[0] as ServerDocument).doc;
  const visited = [...lists].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  const groupOrders: string[][] = [];
  const groups = new Map<string, { first: APIGroupDiscovery; versions: Map<string, VersionAcc>; versionOrders: string[][] }>();
  for (const { doc } of visited) {
    groupOrders.push(doc.items.map(groupName));
    for (const g of doc.items) {
      const name = groupName(g);
      let acc = groups.get(name);
      if (!acc) groups.set(name, (acc = { first: g, versions: new Map(), versionOrders: [] }));
      acc.versionOrders.push(g.versions.map((v) => v.version));
      for (const v of g.versions) {
        let vacc = acc.versions.get(v.version);
        if (!vacc) acc.versions.set(v.version, (vacc = { first: v, resources: new Map(), resourceOrders: [] }));
        vacc.resourceOrders.push((v.resources ?? []).map((r) => r.resource));
        for (const r of v.resources ?? []) {
          const existing = vacc.resources.get(r.resource);
          vacc.resources.set(r.resource, existing ? mergeResource(existing, r) : r);
        }
      }
    }
  }
  const items = mergePreservingRelativeOrder(groupOrders).map((name) => {
    const acc = groups.get(name)!;
    const versions = mergePreservingRelativeOrder(acc.versionOrders).map((version): APIVersionDiscovery => {
      const vacc = acc.versions.get(version)!;
      const resources = mergePreservingRelativeOrder(vacc.resourceOrders).map((r) => vacc.resources.get(r)!);
      const out: APIVersionDiscovery = { ...vacc.first, resources };
      return out;
    });
    return { ...acc.first, versions };
  });
  const first = (visited[0] as ServerDocument).doc;
  return { ...first, items };
}

interface VersionAcc {
  first: APIVersionDiscovery;
  resources: Map<string, APIResourceDiscovery>;
  resourceOrders: string[][];
}

function groupName(g: APIGroupDiscovery): string {
  return g.metadata?.name ?? '';
}

/** Same resource listed by two servers: first-visited fields, verbs and subresources unioned. */
function mergeResource(first: APIResourceDiscovery, later: APIResourceDiscovery): APIResourceDiscovery {
  const verbs = [...new Set([...first.verbs, ...later.verbs])].sort();
  let subresources: APISubresourceDiscovery[] | undefined = first.subresources;
  if (later.subresources?.length) {
    const byName = new Map((first.subresources ?? []).map((s) => [s.subresource, s]));
    for (const s of later.subresources) byName.set(s.subresource, s);
    subresources = [...byName.values()].sort((a, b) => (a.subresource < b.subresource ? -1 : a.subresource > b.subresource ? 1 : 0));
  }
  const out: APIResourceDiscovery = { ...first, verbs };
  if (subresources) out.subresources = subresources;
  return out;
}

/**
 * One order consistent with every list's relative order where they agree: a topological sort of
 * "a comes before b" edges, ties (and cycles) broken by first appearance. When all lists agree, their
 * order is kept.
 */
export function mergePreservingRelativeOrder(orders: readonly (readonly string[])[]): string[] {
  if (orders.length === 1) return [...(orders[0] as readonly string[])];
  const firstSeen = new Map<string, number>();
  const after = new Map<string, Set<string>>();
  const indegree = new Map<string, number>();
  for (const order of orders) {
    for (let i = 0; i < order.length; i++) {
      const n = order[i] as string;
      if (!firstSeen.has(n)) {
        firstSeen.set(n, firstSeen.size);
        after.set(n, new Set());
        indegree.set(n, 0);
      }
      if (i > 0) {
        const prev = order[i - 1] as string;
        const edges = after.get(prev)!;
        if (prev !== n && !edges.has(n)) {
          edges.add(n);
          indegree.set(n, (indegree.get(n) ?? 0) + 1);
        }
      }
    }
  }
  const nodes = [...firstSeen.keys()];
  const done = new Set<string>();
  const out: string[] = [];
  while (out.length < nodes.length) {
    let next = nodes.find((n) => !done.has(n) && indegree.get(n) === 0);
    next ??= nodes.find((n) => !done.has(n)) as string; // a cycle: the earliest seen goes first
    done.add(next);
    out.push(next);
    for (const m of after.get(next) ?? []) indegree.set(m, (indegree.get(m) ?? 1) - 1);
  }
  return out;
}
