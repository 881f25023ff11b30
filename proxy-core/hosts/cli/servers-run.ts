// What `peerscope servers` runs (servers.ts registers it and its flags): the servers found, probed and listed.
import type { Command } from 'commander';
import { displayNames } from '../../engine/cluster/display-names.js';
import { serversFromKubeconfig, type ClusterServers } from '../../engine/cluster/from-kubeconfig.js';
import { ServerSet } from '../../engine/cluster/server-set.js';
import { canonicalRelease } from '../../engine/releases/index.js';
import { fail } from './usage.js';
import { printServers, type ServerRow } from './servers-text.js';

export async function listServers(flags: { kubeconfig?: string; context?: string; output: string }, command: Command): Promise<void> {
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
  const rows = serverRows(found, servers);
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
  printServers(rows, missing);
}

/** One row per server found (probed), then the gone ones (never probed). */
function serverRows(found: ClusterServers, servers: ServerSet): ServerRow[] {
  // Host names, told apart across the servers and the gone ones listed with them.
  const shown = displayNames([...found.servers, ...found.gone]);
  const rows: ServerRow[] = found.servers.map((s) => {
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
  return rows;
}
