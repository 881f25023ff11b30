// What `peerscope sim` prints of its servers once they listen: a table with a header, as `servers`
// prints one (NAME, LEASE, URL, RELEASE), or with -o json one JSON document for a script.
import type { SimServerInfo } from '../../sim/index.js';
import { identityLeaseName } from '../../sim/index.js';
import { formatTable } from '../../engine/util/text-table.js';

export interface SimServerRow {
  /** The name `servers`, the route header and the metrics print (the simulated server's host name). */
  readonly name: string;
  /** Its identity lease, the name a server found through a kubeconfig is known by (`apiserver-sim-1`). */
  readonly lease: string;
  readonly url: string;
  readonly release: string;
  readonly gitVersion: string;
}

export function simServerRows(servers: readonly SimServerInfo[]): SimServerRow[] {
  return servers.map((s) => ({ name: s.name, lease: identityLeaseName(s.name), url: s.url, release: s.release, gitVersion: s.gitVersion }));
}

/** The servers as the table's lines. */
export function simServerTable(rows: readonly SimServerRow[]): string[] {
  return formatTable([['NAME', 'LEASE', 'URL', 'RELEASE'], ...rows.map((r) => [r.name, r.lease, r.url, r.release])]);
}

/** The servers as -o json prints them: one line, so a reader of a command that goes on running can take it at once. */
export function simServerJson(rows: readonly SimServerRow[], kubeconfig: string | undefined): string {
  return JSON.stringify({ servers: rows, kubeconfig: kubeconfig ?? null });
}
