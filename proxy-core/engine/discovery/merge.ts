// Peer-aggregated discovery (rule D2): one /apis document merged across servers, as kube-apiserver's
// peer-aggregated handler builds it. Lists are visited in ascending server name; groups, versions
// and resources are unioned by name; the first-visited entry wins, except verbs (sorted union) and
// subresources (union by name, later-visited wins, sorted); order follows an order-preserving merge.
// By default (rule P9) each group's versions are then put in Kubernetes' version priority, so a client
// that takes the first version serving a resource takes the newest any server serves; with
// `--faithful`, D2's order as kube-apiserver builds it.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type {
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIResourceDiscovery,
  APISubresourceDiscovery,
  APIVersionDiscovery,
} from './types.js';
import { byVersionPriority, inVersionPriority, type VersionOrder } from '../../contract/version-priority.js';

export interface ServerDocument {
  readonly server: string;
  readonly doc: APIGroupDiscoveryList;
}

export interface MergeOptions {
  /** 'priority' (P9, the port's default) or 'as-served' (D2 exactly: `--faithful`). Default 'as-served'. */
  readonly versionOrder?: VersionOrder;
}

export function mergeDiscovery(lists: readonly ServerDocument[], options: MergeOptions = {}): APIGroupDiscoveryList {
  const merged = mergeAsServed(lists);
  return options.versionOrder === 'priority' ? inPriorityOrder(merged) : merged;
}

/**
 * P9: each group's versions in version priority. A document already in that order (every
 * kube-apiserver's own is) is returned as it is: the same object, so the same JSON and ETag.
 */
export function inPriorityOrder(doc: APIGroupDiscoveryList): APIGroupDiscoveryList {
  const names = (g: APIGroupDiscovery) => g.versions.map((v) => v.version);
  if (doc.items.every((g) => inVersionPriority(names(g)))) return doc;
  const items = doc.items.map((g) => {
    if (inVersionPriority(names(g))) return g;
    const byName = new Map(g.versions.map((v) => [v.version, v]));
    return { ...g, versions: byVersionPriority(names(g)).map((v) => byName.get(v)!) };
  });
  return { ...doc, items };
}

function mergeAsServed(lists: readonly ServerDocument[]): APIGroupDiscoveryList {
  // D2: a single list is returned unchanged (same object, so the same JSON and ETag).
  if (lists.length === 1) return (lists[0] as ServerDocument).doc;
  if (lists.length === 0) return { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] };
  // D2: visit in ascending lexicographic order of server name (code units, like Go's string compare).
  const visited = [...lists].sort((a, b) => cmp(a.server, b.server));
  const groupOrders: string[][] = [];
  const entriesByName = new Map<string, APIGroupDiscovery[]>();
  for (const { doc } of visited) {
    const order: string[] = [];
    for (const g of doc.items) {
      const name = groupName(g);
      order.push(name);
      const entries = entriesByName.get(name);
      if (entries) entries.push(g);
      else entriesByName.set(name, [g]);
    }
    groupOrders.push(order);
  }
  const items = mergePreservingRelativeOrder(groupOrders).map((name) => mergeGroup(entriesByName.get(name)!));
  const first = (visited[0] as ServerDocument).doc;
  return { ...first, items };
}

/**
 * One group as listed by every server that lists it, in visit order. A group only one server lists,
 * or that every server lists identically, is taken as it is (the common case, and most of the cost
 * of a merge of many CRD groups); otherwise versions and resources are unioned.
 */
function mergeGroup(entries: readonly APIGroupDiscovery[]): APIGroupDiscovery {
  const first = entries[0] as APIGroupDiscovery;
  if (hasUniqueNames(first) && entries.every((g) => g === first || deepEqual(g, first))) return first;
  const versions = new Map<string, VersionAcc>();
  const versionOrders: string[][] = [];
  for (const g of entries) {
    versionOrders.push(g.versions.map((v) => v.version));
    for (const v of g.versions) {
      let vacc = versions.get(v.version);
      if (!vacc) versions.set(v.version, (vacc = { first: v, resources: new Map(), resourceOrders: [] }));
      vacc.resourceOrders.push((v.resources ?? []).map((r) => r.resource));
      for (const r of v.resources ?? []) {
        const existing = vacc.resources.get(r.resource);
        vacc.resources.set(r.resource, existing ? mergeResource(existing, r) : r);
      }
    }
  }
  const merged = mergePreservingRelativeOrder(versionOrders).map((version): APIVersionDiscovery => {
    const vacc = versions.get(version)!;
    const resources = mergePreservingRelativeOrder(vacc.resourceOrders).map((r) => vacc.resources.get(r)!);
    // `resources` is omitempty on the wire: keep it absent where every server left it out.
    const out: APIVersionDiscovery = { ...vacc.first };
    if (resources.length > 0 || vacc.first.resources !== undefined) out.resources = resources;
    return out;
  });
  return { ...first, versions: merged };
}

/** No version listed twice in the group, no resource twice in a version: the union would be the group itself. */
function hasUniqueNames(g: APIGroupDiscovery): boolean {
  if (!uniqueBy(g.versions, (v) => v.version)) return false;
  for (const v of g.versions) if (v.resources && !uniqueBy(v.resources, (r) => r.resource)) return false;
  return true;
}

function uniqueBy<T>(xs: readonly T[], key: (x: T) => string): boolean {
  if (xs.length < 2) return true;
  if (xs.length <= 8) {
    for (let i = 1; i < xs.length; i++) for (let j = 0; j < i; j++) if (key(xs[i] as T) === key(xs[j] as T)) return false;
    return true;
  }
  return new Set(xs.map(key)).size === xs.length;
}

interface VersionAcc {
  first: APIVersionDiscovery;
  resources: Map<string, APIResourceDiscovery>;
  resourceOrders: string[][];
}

function groupName(g: APIGroupDiscovery): string {
  return g.metadata?.name ?? '';
}

/**
 * Same resource listed by two servers. Identical entries stay as they are; on a conflict the
 * first-visited fields win, verbs become the sorted union and subresources the union by name
 * (later-visited wins for a name), sorted by name.
 */
function mergeResource(first: APIResourceDiscovery, later: APIResourceDiscovery): APIResourceDiscovery {
  if (deepEqual(first, later)) return first;
  const verbs = [...new Set([...first.verbs, ...later.verbs])].sort();
  const byName = new Map<string, APISubresourceDiscovery>();
  for (const s of first.subresources ?? []) byName.set(s.subresource, s);
  for (const s of later.subresources ?? []) byName.set(s.subresource, s);
  const out: APIResourceDiscovery = { ...first, verbs };
  if (byName.size > 0) out.subresources = [...byName.values()].sort((a, b) => cmp(a.subresource, b.subresource));
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Structural equality of JSON values (key order ignored, as for decoded Go structs). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    count++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) count--;
  return count === 0;
}

/**
 * One order consistent with every list's relative order where they agree: a topological sort of
 * "a comes before b" edges, ties (and cycles) broken by first appearance. When all lists agree, their
 * order is kept. Kahn's algorithm with a min-heap on first appearance: O(n log n).
 */
export function mergePreservingRelativeOrder(orders: readonly (readonly string[])[]): string[] {
  if (orders.length === 0) return [];
  if (orders.length === 1 || allEqual(orders)) return [...(orders[0] as readonly string[])];
  const index = new Map<string, number>();
  const names: string[] = [];
  const edges: number[][] = [];
  const indegree: number[] = [];
  const seenEdge = new Set<number>();
  for (const order of orders) {
    let prev = -1;
    for (const name of order) {
      let id = index.get(name);
      if (id === undefined) {
        id = names.length;
        index.set(name, id);
        names.push(name);
        edges.push([]);
        indegree.push(0);
      }
      if (prev >= 0 && prev !== id) {
        const key = prev * 1_048_576 + id;
        if (!seenEdge.has(key)) {
          seenEdge.add(key);
          edges[prev]!.push(id);
          indegree[id]!++;
        }
      }
      prev = id;
    }
  }
  const heap = new MinHeap();
  for (let id = 0; id < names.length; id++) if (indegree[id] === 0) heap.push(id);
  const done = new Uint8Array(names.length);
  const out: string[] = [];
  let nextUnseen = 0;
  while (out.length < names.length) {
    let id = heap.pop();
    if (id === undefined) {
      // A cycle: the earliest seen of what is left goes first.
      while (done[nextUnseen]) nextUnseen++;
      id = nextUnseen;
    }
    if (done[id]) continue;
    done[id] = 1;
    out.push(names[id] as string);
    for (const m of edges[id]!) if (--indegree[m]! === 0 && !done[m]) heap.push(m);
  }
  return out;
}

/** The common case during a rollout: every server lists the same names in the same order. */
function allEqual(orders: readonly (readonly string[])[]): boolean {
  const first = orders[0] as readonly string[];
  for (let o = 1; o < orders.length; o++) {
    const other = orders[o] as readonly string[];
    if (other.length !== first.length) return false;
    for (let i = 0; i < first.length; i++) if (other[i] !== first[i]) return false;
  }
  return true;
}

class MinHeap {
  private readonly items: number[] = [];
  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= v) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = v;
  }
  pop(): number | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
