// The text form of `peerscope servers`: one row per server (the columns shown only where any server
// has something in them), then the verdicts and counts in plain words, then the missing registrations.
import type { OwnMvp } from '../../contract/own-mvp.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';
import type { MissingRegistration } from '../../engine/discovery/missing-registration.js';
import { reachabilityLines } from '../../engine/cluster/reachability.js';
import { formatTable } from '../../engine/util/text-table.js';
import type { FoundServer } from '../../engine/cluster/find-servers.js';
import type { ServerStatus } from '../../contract/servers.js';

/** A server as the command lists it (its JSON form, and the text table's row). */
export interface ServerRow {
  readonly name: string;
  readonly displayName: string;
  readonly url: string;
  readonly foundBy: string;
  readonly release: string | null;
  readonly health: ServerStatus['health'] | 'gone';
  readonly failingChecks: readonly string[];
  readonly lease?: FoundServer['lease'];
  readonly ownMvp?: ServerStatus['ownMvp'];
  readonly apiserverMetrics?: ServerStatus['apiserverMetrics'];
  readonly proxy?: ServerStatus['proxy'];
  readonly error?: string;
  readonly unreachable?: ServerStatus['unreachable'];
}

export function printServers(rows: readonly ServerRow[], missing: readonly MissingRegistration[]): void {
  // The servers' own Mixed Version Proxy, where any server shows a kube-apiserver's checks.
  const told = rows.some((r) => r.ownMvp && r.ownMvp.verdict !== 'unknown');
  // Request counts where any server's /metrics was read.
  const counted = rows.some((r) => r.apiserverMetrics?.state === 'read' && r.apiserverMetrics.requestsTotal !== null);
  // The lease name beside the host name, where any server was named by a lease.
  const leased = rows.some((r) => r.foundBy === 'lease');
  const table = [
    [
      'NAME',
      ...(leased ? ['LEASE'] : []),
      'URL',
      'RELEASE',
      'HEALTH',
      'FOUND BY',
      ...(told ? ['OWN MVP', 'REROUTED'] : []),
      ...(counted ? ['REQUESTS', '5XX', '404', 'DEPRECATED APIS'] : []),
    ],
    ...rows.map((r) => [
      r.displayName,
      ...(leased ? [r.foundBy === 'lease' ? r.name : '-'] : []),
      r.url,
      r.release ?? '-',
      r.health + (r.lease?.expired ? ' (lease expired)' : ''),
      r.foundBy,
      ...(told ? ownMvpColumns(r.ownMvp) : []),
      ...(counted ? requestColumns(r.apiserverMetrics) : []),
    ]),
  ];
  for (const line of formatTable(table)) console.log(line);
  // The servers out of reach, one line per cause (timeout, refused, certificate…), and who carries the traffic.
  for (const line of reachabilityLines(rows)) console.log(line);
  // The verdicts in plain words, one line per server that has one.
  for (const r of rows) if (r.ownMvp && r.ownMvp.verdict !== 'unknown') console.log(`${r.ownMvp.summary}; ${reroutedWords(r.ownMvp)}`);
  for (const r of rows) {
    const words = r.apiserverMetrics && requestWords(r.displayName, r.apiserverMetrics);
    if (words) console.log(words);
  }
  for (const m of missing) console.log(`missing API registration: ${m.message}`);
}

function ownMvpColumns(o: OwnMvp | undefined): [string, string] {
  if (!o) return ['-', '-'];
  const m = o.metrics;
  return [o.verdict, m.state === 'exposed' ? String(m.reroutedTotal) : m.state];
}

function requestColumns(m: ServerMetrics | undefined): [string, string, string, string] {
  if (!m || m.state !== 'read') return [m?.state ?? '-', '-', '-', '-'];
  if (m.requestsTotal === null) return ['not exposed', '-', '-', '-'];
  return [String(m.requestsTotal), String(m.serverErrorsTotal), String(m.notFoundTotal), String(m.deprecatedApis?.length ?? '-')];
}

/** What a server's /metrics says it answered: the deprecated APIs requested by name, and the GVRs with 5xx. */
function requestWords(name: string, m: ServerMetrics): string | undefined {
  if (m.state === 'forbidden' || m.state === 'unreadable') return `${name}'s /metrics could not be read: ${m.error ?? m.state}`;
  if (m.state !== 'read') return undefined;
  if (m.requestsTotal === null) return `${name}'s /metrics counts no requests: ${m.error ?? 'not exposed'}`;
  const gvr = (x: { group: string; version: string; resource: string; subresource: string }) =>
    `${x.group || 'core'}/${x.version}/${x.resource}${x.subresource ? `/${x.subresource}` : ''}`;
  const deprecated = (m.deprecatedApis ?? []).map((d) => `${gvr(d)}${d.removedRelease ? ` (removed in ${d.removedRelease})` : ''}`);
  const failing = (m.requests ?? []).filter((r) => r.serverErrors > 0).map((r) => `${r.verb} ${gvr(r)} ${r.serverErrors}`);
  return [
    `${name}'s /metrics counts ${m.requestsTotal} request(s), ${m.serverErrorsTotal} answered 5xx, ${m.notFoundTotal} answered 404 (false 404s are not counted there: see peerscope audit)`,
    deprecated.length ? `; deprecated APIs requested: ${deprecated.join(', ')}` : '; no deprecated API requested',
    failing.length ? `; 5xx by GVR: ${failing.join(', ')}` : '',
  ].join('');
}

function reroutedWords(o: OwnMvp): string {
  const m = o.metrics;
  switch (m.state) {
    case 'exposed':
      return `its /metrics counts ${m.reroutedTotal} rerouted request(s), ${m.proxyErrorsTotal} peer-proxy error(s), ${m.discoverySyncErrorsTotal} peer-discovery sync error(s)`;
    case 'not-exposed':
      return 'its /metrics exposes no peer-proxy counters (no peer proxy to count)';
    case 'forbidden':
    case 'unreadable':
      return `its /metrics could not be read: ${m.error ?? m.state}`;
    default:
      return 'its /metrics was not read (not ready)';
  }
}
