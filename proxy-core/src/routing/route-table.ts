// The route table: every GVR with the servers whose own discovery lists it (spec R5, R6). Lookups
// are one Map get; a server's discovery change rebuilds from per-server sets kept between builds.
import { gvrKey, parseGvrKey, type GVR } from '../discovery/types.js';

export interface RouteTableServer {
  readonly name: string;
  /** undefined: this server's discovery was never read (it is absent from the peer cache). */
  readonly gvrs: Iterable<GVR> | undefined;
  /** "group/version" of CRDs and service-backed APIServices: never proxied to a peer (spec R6). */
  readonly excludedGroupVersions?: Iterable<string>;
}

export interface RouteRow {
  readonly gvr: GVR;
  readonly servers: readonly string[];
}

const EMPTY: readonly string[] = Object.freeze([]);

export class RouteTable {
  private readonly byKey = new Map<string, string[]>();
  private readonly perServer: Map<string, ReadonlySet<string>> = new Map();
  private readonly excluded: Map<string, ReadonlySet<string>> = new Map();
  readonly serverNames: readonly string[];

  constructor(servers: readonly RouteTableServer[], prebuilt?: { keys: Map<string, ReadonlySet<string>>; excluded: Map<string, ReadonlySet<string>> }) {
    this.serverNames = servers.map((s) => s.name);
    if (prebuilt) {
      this.perServer = prebuilt.keys;
      this.excluded = prebuilt.excluded;
    } else {
      for (const s of servers) {
        if (s.gvrs === undefined) continue;
        const keys = new Set<string>();
        for (const g of s.gvrs) keys.add(gvrKey(g));
        this.perServer.set(s.name, keys);
        this.excluded.set(s.name, new Set(s.excludedGroupVersions ?? []));
      }
    }
    for (const name of this.serverNames) {
      for (const key of this.perServer.get(name) ?? []) {
        const list = this.byKey.get(key);
        if (list) list.push(name);
        else this.byKey.set(key, [name]);
      }
    }
  }

  /** Servers (in configuration order) whose own discovery lists the GVR. */
  serversFor(gvr: GVR): readonly string[] {
    return this.byKey.get(gvrKey(gvr)) ?? EMPTY;
  }

  serversForKey(key: string): readonly string[] {
    return this.byKey.get(key) ?? EMPTY;
  }

  serves(server: string, gvr: GVR): boolean {
    return this.perServer.get(server)?.has(gvrKey(gvr)) ?? false;
  }

  /** Whether `server` was ever read (is in the peer cache). */
  known(server: string): boolean {
    return this.perServer.has(server);
  }

  /** Whether `server` treats group/version as a CRD or aggregated API (never proxied, R6). */
  isExcluded(server: string, group: string, version: string): boolean {
    return this.excluded.get(server)?.has(`${group}/${version}`) ?? false;
  }

  /** Every GVR with its servers, sorted by group, version, resource. */
  rows(): RouteRow[] {
    return [...this.byKey.entries()]
      .map(([key, servers]) => ({ gvr: parseGvrKey(key), servers }))
      .sort((a, b) => cmp(a.gvr.group, b.gvr.group) || cmp(a.gvr.version, b.gvr.version) || cmp(a.gvr.resource, b.gvr.resource));
  }

  /** GVRs served by some known servers but not all of them: the rows an operator must watch. */
  skewed(): GVR[] {
    const known = this.perServer.size;
    return this.rows().filter((r) => r.servers.length < known).map((r) => r.gvr);
  }

  /** A new table with one server's discovery replaced (a rollout step). */
  withServer(name: string, gvrs: Iterable<GVR> | undefined, excludedGroupVersions: Iterable<string> = []): RouteTable {
    // The other servers' key sets are shared, not re-read: only the changed server costs anything.
    const keys = new Map(this.perServer);
    const excluded = new Map(this.excluded);
    if (gvrs === undefined) {
      keys.delete(name);
      excluded.delete(name);
    } else {
      const set = new Set<string>();
      for (const g of gvrs) set.add(gvrKey(g));
      keys.set(name, set);
      excluded.set(name, new Set(excludedGroupVersions));
    }
    const names = this.serverNames.includes(name) ? this.serverNames : [...this.serverNames, name];
    return new RouteTable(names.map((n) => ({ name: n, gvrs: undefined })), { keys, excluded });
  }
}

export function buildRouteTable(servers: readonly RouteTableServer[]): RouteTable {
  return new RouteTable(servers);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
