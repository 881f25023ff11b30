// The route table: every GVR with the servers whose own discovery lists it (rule R5, R6). A lookup
// is one Map get by gvrKey. A table is immutable; `withServer` derives the next one after one
// server's discovery changed by copying the key map and patching only the keys that server gained
// or lost, so the server lists of untouched keys are shared between tables, never rebuilt.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { PeerscopeError } from '../../contract/errors.js';
import { gvrKey, parseGvrKey, type GVR } from '../discovery/types.js';

export interface RouteTableServer {
  readonly name: string;
  /** undefined: this server's discovery was never read (it is absent from the peer cache, §4.4). */
  readonly gvrs: Iterable<GVR> | undefined;
  /** "group/version" of CRDs and service-backed APIServices: never proxied to a peer (rule R6). */
  readonly excludedGroupVersions?: Iterable<string>;
}

export interface RouteRow {
  readonly gvr: GVR;
  /** The servers that serve the GVR, in configuration order. */
  readonly servers: readonly string[];
}

const EMPTY: readonly string[] = Object.freeze([]);
const NO_KEYS: ReadonlySet<string> = new Set();

interface TableData {
  readonly serverNames: readonly string[];
  /** gvrKey → servers in configuration order; arrays are never mutated once stored. */
  readonly byKey: Map<string, readonly string[]>;
  /** Per server whose discovery is known: its gvrKeys. */
  readonly perServer: Map<string, ReadonlySet<string>>;
  readonly excluded: Map<string, ReadonlySet<string>>;
}

export class RouteTable {
  readonly serverNames: readonly string[];
  private readonly byKey: Map<string, readonly string[]>;
  private readonly perServer: Map<string, ReadonlySet<string>>;
  private readonly excluded: Map<string, ReadonlySet<string>>;
  /** Union of every known server's CRD / aggregated group-versions (see `excludes`). */
  private readonly excludedAnywhere: ReadonlySet<string>;
  private readonly order: Map<string, number>;
  private rowsCache: readonly RouteRow[] | undefined;
  /** "group/version" and "group" → servers; built on first use (discovery paths only, P8). */
  private groupIndexCache: { readonly byGroupVersion: Map<string, string[]>; readonly byGroup: Map<string, string[]> } | undefined;

  /** Use `buildRouteTable`; the constructor takes prepared data. */
  constructor(data: TableData) {
    this.serverNames = data.serverNames;
    this.byKey = data.byKey;
    this.perServer = data.perServer;
    this.excluded = data.excluded;
    this.order = new Map(data.serverNames.map((n, i) => [n, i]));
    const union = new Set<string>();
    for (const set of data.excluded.values()) for (const gv of set) union.add(gv);
    this.excludedAnywhere = union;
  }

  /** Servers (in configuration order) whose own discovery lists the GVR exactly. */
  serversFor(gvr: GVR): readonly string[] {
    return this.byKey.get(gvrKey(gvr)) ?? EMPTY;
  }

  /** Same as `serversFor`, by "group/version/resource" key. */
  serversForKey(key: string): readonly string[] {
    return this.byKey.get(key) ?? EMPTY;
  }

  /** Servers (in configuration order) whose own discovery lists a resource of group/version. */
  serversForGroupVersion(group: string, version: string): readonly string[] {
    return this.groupIndex().byGroupVersion.get(`${group}/${version}`) ?? EMPTY;
  }

  /** Servers (in configuration order) whose own discovery lists a resource of any version of group. */
  serversForGroup(group: string): readonly string[] {
    return this.groupIndex().byGroup.get(group) ?? EMPTY;
  }

  serves(server: string, gvr: GVR): boolean {
    return this.perServer.get(server)?.has(gvrKey(gvr)) ?? false;
  }

  /** Whether `server`'s discovery was ever read (it is in the peer discovery cache, §4.4). */
  known(server: string): boolean {
    return this.perServer.has(server);
  }

  /** Whether `server` reported group/version as a CRD or service-backed APIService. */
  isExcluded(server: string, group: string, version: string): boolean {
    return this.excluded.get(server)?.has(`${group}/${version}`) ?? false;
  }

  /**
   * R6: whether group/version belongs to a CRD or aggregated APIService. Those are cluster objects
   * (one etcd), so every kube-apiserver knows the same ones; Peerscope reads them per server on a
   * best-effort basis (RBAC may forbid a read), so what any server reported counts for H too.
   */
  excludes(group: string, version: string): boolean {
    return this.excludedAnywhere.size > 0 && this.excludedAnywhere.has(`${group}/${version}`);
  }

  /** Every GVR with its servers, sorted by group, version, resource. */
  rows(): readonly RouteRow[] {
    if (!this.rowsCache) {
      const rows: RouteRow[] = [];
      for (const [key, servers] of this.byKey) rows.push({ gvr: parseGvrKey(key), servers });
      rows.sort((a, b) => cmp(a.gvr.group, b.gvr.group) || cmp(a.gvr.version, b.gvr.version) || cmp(a.gvr.resource, b.gvr.resource));
      this.rowsCache = rows;
    }
    return this.rowsCache;
  }

  /** GVRs served by some known servers but not all of them: the rows an operator must watch. */
  skewed(): GVR[] {
    const known = this.perServer.size;
    const out: GVR[] = [];
    for (const r of this.rows()) if (r.servers.length < known) out.push(r.gvr);
    return out;
  }

  private groupIndex(): { readonly byGroupVersion: Map<string, string[]>; readonly byGroup: Map<string, string[]> } {
    if (!this.groupIndexCache) {
      const byGroupVersion = new Map<string, string[]>();
      const byGroup = new Map<string, string[]>();
      // Servers in configuration order, so each list is in that order too.
      for (const server of this.serverNames) {
        const keys = this.perServer.get(server);
        if (!keys) continue;
        for (const key of keys) {
          const gvr = parseGvrKey(key);
          addOnce(byGroupVersion, `${gvr.group}/${gvr.version}`, server);
          addOnce(byGroup, gvr.group, server);
        }
      }
      this.groupIndexCache = { byGroupVersion, byGroup };
    }
    return this.groupIndexCache;
  }

  /**
   * A new table with one server's discovery replaced (a rollout step); `gvrs` undefined forgets it.
   * Cost: one copy of the key map plus the keys this server gained or lost.
   */
  withServer(name: string, gvrs: Iterable<GVR> | undefined, excludedGroupVersions: Iterable<string> = []): RouteTable {
    const serverNames = this.order.has(name) ? this.serverNames : [...this.serverNames, name];
    const order = this.order.has(name) ? this.order : new Map(serverNames.map((n, i) => [n, i]));
    const perServer = new Map(this.perServer);
    const excluded = new Map(this.excluded);
    const before = this.perServer.get(name) ?? NO_KEYS;
    let after: ReadonlySet<string> = NO_KEYS;
    if (gvrs === undefined) {
      perServer.delete(name);
      excluded.delete(name);
    } else {
      const keys = new Set<string>();
      for (const g of gvrs) keys.add(gvrKey(g));
      after = keys;
      perServer.set(name, keys);
      excluded.set(name, new Set(excludedGroupVersions));
    }
    const byKey = new Map(this.byKey);
    for (const key of before) {
      if (after.has(key)) continue;
      const servers = (byKey.get(key) ?? EMPTY).filter((s) => s !== name);
      if (servers.length === 0) byKey.delete(key);
      else byKey.set(key, servers);
    }
    const rank = order.get(name) as number;
    for (const key of after) {
      if (before.has(key)) continue;
      byKey.set(key, insertInOrder(byKey.get(key) ?? EMPTY, name, rank, order));
    }
    return new RouteTable({ serverNames, byKey, perServer, excluded });
  }
}

export function buildRouteTable(servers: readonly RouteTableServer[]): RouteTable {
  const serverNames = servers.map((s) => s.name);
  const perServer = new Map<string, ReadonlySet<string>>();
  const excluded = new Map<string, ReadonlySet<string>>();
  const byKey = new Map<string, string[]>();
  if (new Set(serverNames).size !== serverNames.length)
    throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `server names must be unique: ${serverNames.join(', ')}`);
  for (const s of servers) {
    if (s.gvrs === undefined) continue;
    const keys = new Set<string>();
    for (const g of s.gvrs) {
      const key = gvrKey(g);
      if (keys.has(key)) continue;
      keys.add(key);
      const list = byKey.get(key);
      if (list) list.push(s.name);
      else byKey.set(key, [s.name]);
    }
    perServer.set(s.name, keys);
    excluded.set(s.name, new Set(s.excludedGroupVersions ?? []));
  }
  return new RouteTable({ serverNames, byKey, perServer, excluded });
}

function insertInOrder(servers: readonly string[], name: string, rank: number, order: ReadonlyMap<string, number>): string[] {
  const out: string[] = [];
  let inserted = false;
  for (const s of servers) {
    if (!inserted && (order.get(s) as number) > rank) {
      out.push(name);
      inserted = true;
    }
    out.push(s);
  }
  if (!inserted) out.push(name);
  return out;
}

function addOnce(index: Map<string, string[]>, key: string, server: string): void {
  const list = index.get(key);
  if (!list) index.set(key, [server]);
  else if (list[list.length - 1] !== server) list.push(server);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
