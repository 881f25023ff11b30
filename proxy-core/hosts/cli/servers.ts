// `peerscope servers`: the apiservers found from a kubeconfig, by host name beside their lease name, with
// release, health and how each was found. `peers`, its name before issue 31, is still accepted: "peer"
// now means only what KEP-4020 means (a server other than the handling one).
import type { Command } from 'commander';
import { displayNames } from '../../engine/cluster/display-names.js';
import { serversFromKubeconfig } from '../../engine/cluster/from-kubeconfig.js';
import { ServerSet } from '../../engine/cluster/server-set.js';
import { reachabilityLines } from '../../engine/cluster/reachability.js';
import type { OwnMvp } from '../../contract/own-mvp.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';
import { formatTable } from '../../engine/util/text-table.js';
import { canonicalRelease } from '../../engine/releases/index.js';
import { fail } from './usage.js';
import { outputOption } from './options.js';

export function registerServersCommand(program: Command): void {
  program
    .command('servers')
    .alias('peers')
    .description(
      'list the apiservers of a cluster found from a kubeconfig (identity leases, default/kubernetes endpoints); renamed from peers (the old name still works)',
    )
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context (default: current-context)')
    .addOption(outputOption(['text', 'json']))
    .action(async (flags: { kubeconfig?: string; context?: string; output: string }, command: Command) => {
      if (command.parent?.args[0] === 'peers') process.stderr.write('peerscope: peers is renamed servers; the old name still works\n');
      const found = await serversFromKubeconfig({
        ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
        ...(flags.context ? { context: flags.context } : {}),
      }).catch((err: Error) => fail(err.message));
      const servers = new ServerSet(found.servers, { timeoutMs: 5_000 });
      await Promise.all(found.servers.map((s) => servers.probe(s.name)));
      await servers.readOwnMetrics();
      // Each ready server's discovery and the API registrations: a group served but registered by no
      // APIService is lost to legacy discovery straight to the servers (discovery/missing-registration.ts).
      await Promise.all(found.servers.filter((s) => servers.health(s.name) === 'ready').map((s) => servers.refreshDiscovery(s.name)));
      const missing = servers.missingRegistrations();
      await servers.close();
      // Host names, told apart across the servers and the gone ones listed with them.
      const shown = displayNames([...found.servers, ...found.gone]);
      const rows = found.servers.map((s) => {
        const status = servers.status(s.name);
        const f = found.found.find((x) => x.name === s.name);
        return {
          name: s.name,
          displayName: shown.get(s.name) ?? s.name,
          url: s.url,
          foundBy: s.source ?? 'flag',
          release: status?.gitVersion ? canonicalRelease(status.gitVersion) : null,
          health: status?.health ?? 'unknown',
          failingChecks: status?.failingChecks ?? [],
          ...(f?.lease ? { lease: f.lease } : {}),
          ...(status?.ownMvp ? { ownMvp: status.ownMvp } : {}),
          ...(status?.apiserverMetrics ? { apiserverMetrics: status.apiserverMetrics } : {}),
          ...(status?.proxy ? { proxy: status.proxy } : {}),
          ...(status?.lastError ? { error: status.lastError } : {}),
          ...(status?.unreachable ? { unreachable: status.unreachable } : {}),
        };
      });
      // Servers whose lease expired while their address left the endpoints: listed as gone, never probed.
      for (const g of found.gone) {
        rows.push({
          name: g.name,
          displayName: shown.get(g.name) ?? g.name,
          url: g.url,
          foundBy: 'lease',
          release: null,
          health: 'gone',
          failingChecks: [],
          error: `gone: ${g.reason}`,
        });
      }
      if (flags.output === 'json') {
        process.stdout.write(
          JSON.stringify(
            { context: found.kubeconfig.contextName, servers: rows, missingRegistrations: missing, warnings: found.warnings },
            null,
            2,
          ) + '\n',
        );
        return;
      }
      for (const w of found.warnings) process.stderr.write(`peerscope: warning: ${w}\n`);
      for (const n of found.notes) process.stderr.write(`peerscope: ${n}\n`);
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
    });
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
