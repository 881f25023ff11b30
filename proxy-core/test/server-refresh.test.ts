// The server list follows the cluster (issue 5): the core finds the apiservers again on a period from
// the kubeconfig's cluster. During a rollout every server is followed through draining, down and back
// at the new release under the same name; a server whose lease expired and whose address left the
// endpoints is shown gone (never routed to; a request for what only it served is a 503 naming it),
// then removed; a server that joins is added, probed, read, and routed to.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverStatusSchema, type HealthState } from '../contract/servers.js';
import { serversFromKubeconfig } from '../engine/cluster/from-kubeconfig.js';
import type { MembershipChange } from '../engine/cluster/server-set.js';
import { createCore, type ServerRefresh } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { runRollout } from '../sim/rollout.js';
import { repoRoot } from '../../test/fixtures.js';
import { eventually, pickCatalog, A_GVRS } from './harness.js';

// storagemigration.k8s.io/v1 storageversionmigrations: v1.37-dev serves it, v1.36-dev does not.
const NEW_ONLY = '/apis/storagemigration.k8s.io/v1/storageversionmigrations';

function writeKubeconfig(sim: SimCluster): string {
  const file = join(mkdtempSync(join(tmpdir(), 'refresh-')), 'config');
  writeFileSync(file, sim.kubeconfig());
  return file;
}

async function coreFor(sim: SimCluster, options: { refreshMs: number; goneRetentionMs?: number }) {
  const found = await serversFromKubeconfig({ kubeconfig: writeKubeconfig(sim), env: {} });
  const refreshes: ServerRefresh[] = [];
  const core = createCore({
    servers: found.servers,
    listen: { port: 0 },
    probeIntervalMs: 100,
    serverSource: found.source,
    serverRefreshIntervalMs: options.refreshMs,
    ...(options.goneRetentionMs ? { goneRetentionMs: options.goneRetentionMs } : {}),
    onServerRefresh: (r) => refreshes.push(r),
  });
  const membership: [string, MembershipChange][] = [];
  core.servers.on('membership', (name, change) => membership.push([name, change]));
  const address = await core.start();
  const get = async (path: string) => {
    const res = await fetch(`${address.url}${path}`);
    return { status: res.status, route: res.headers.get('x-peerscope-route') ?? '', body: await res.text() };
  };
  return { core, found, refreshes, membership, get };
}

describe('the server list follows the cluster', () => {
  it('during a rollout, each server keeps its place and is followed through draining, down and back at the new release', async () => {
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    const sim = await startSimCluster({ releases: [from, from, from] });
    const { core, refreshes, membership } = await coreFor(sim, { refreshMs: 100 });
    try {
      const names = ['apiserver-sim-1', 'apiserver-sim-2', 'apiserver-sim-3'];
      expect(core.servers.names()).toEqual(names);
      const seen = new Map<string, HealthState[]>(names.map((n) => [n, []]));
      core.servers.on('health', (name) => {
        const list = seen.get(name);
        const h = core.servers.health(name);
        if (list && list.at(-1) !== h) list.push(h);
      });
      // sim-1 is the kubeconfig's server: while it is down the refresh asks the others.
      // A drain long enough for a probe to see it on a loaded two-core machine.
      await runRollout(sim.servers, to, { drainSeconds: 1, downSeconds: 0.5 });
      await eventually(
        () => names.every((n) => core.servers.status(n)?.gitVersion === 'v1.37.0-dev' && core.servers.health(n) === 'ready'),
        'every server ready at v1.37',
        10_000,
      );
      for (const n of names) {
        const h = seen.get(n)!;
        console.log(`${n}: ${h.join(' → ')}`);
        expect(h.indexOf('draining'), `${n}: ${h.join(',')}`).toBeGreaterThanOrEqual(0);
        expect(h.indexOf('unreachable'), `${n}: ${h.join(',')}`).toBeGreaterThan(h.indexOf('draining'));
        expect(h.at(-1)).toBe('ready');
        expect(core.servers.history(n).map((s) => s.gitVersion)).toEqual(expect.arrayContaining(['v1.36.0-dev', 'v1.37.0-dev']));
      }
      // Same three servers all along: nobody joined, left or moved, and every refresh read the cluster.
      expect(membership).toEqual([]);
      expect(core.servers.names()).toEqual(names);
      expect(refreshes.length).toBeGreaterThan(10);
      expect(refreshes.filter((r) => !r.ok || r.update.warnings.length > 0)).toEqual([]);
      console.log(`${refreshes.length} refreshes during the rollout, all read the leases and endpoints`);
    } finally {
      await core.close(0);
      await sim.close();
    }
  });

  it('a server whose lease expired and whose address left the endpoints is gone, then removed; a new server is added', async () => {
    const sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      leaseDurationSeconds: 1,
    });
    const { core, membership, get } = await coreFor(sim, { refreshMs: 150, goneRetentionMs: 2_500 });
    try {
      expect(core.servers.names()).toEqual(['apiserver-new', 'apiserver-old']);
      expect((await get(NEW_ONLY)).route).toMatch(/answering=new; outcome=(local|rerouted);.*answering-id=apiserver-new$/);

      await sim.server('new').stop(); // leaves the endpoints now; its lease expires a second later
      await eventually(() => core.servers.health('apiserver-new') === 'gone', 'apiserver-new shown gone', 8_000);
      const status = core.servers.status('apiserver-new')!;
      expect(() => serverStatusSchema.parse(status)).not.toThrow();
      expect(status.health).toBe('gone');
      expect(status.gone?.reason).toMatch(
        /^its identity lease expired at .* and its address 127\.0\.0\.1:\d+ left the default\/kubernetes endpoints$/,
      );
      console.log(`gone: ${status.gone?.reason}`);
      expect(membership).toContainEqual(['apiserver-new', 'gone']);
      // Never a handling server; what only it served is a 503 naming it (as Kubernetes answers C40), by
      // its lease's host name with the lease name beside it.
      for (let i = 0; i < 4; i++) {
        const r = await get(NEW_ONLY);
        expect(r.status).toBe(503);
        expect(r.route).toBe('handling=old; answering=-; outcome=unavailable; handling-id=apiserver-old');
        expect(JSON.parse(r.body).message).toMatch(
          /^Error while proxying request to destination apiserver: apiserver "new" \(apiserver-new\): gone: its identity lease expired/,
        );
      }
      // After the retention it leaves the list: nobody serves the GVR now, the handling server's own 404.
      await eventually(() => !core.servers.names().includes('apiserver-new'), 'apiserver-new removed', 6_000);
      expect(membership).toContainEqual(['apiserver-new', 'removed']);
      const after = await get(NEW_ONLY);
      expect([after.status, after.route]).toEqual([
        404,
        'handling=old; answering=old; outcome=notfound; handling-id=apiserver-old; answering-id=apiserver-old',
      ]);

      // A new apiserver joins the cluster: added, probed, its discovery read, routed to.
      await sim.addServer('newer', loadRelease('v1.37-dev'));
      await eventually(
        () => core.servers.health('apiserver-newer') === 'ready' && core.routes.table.skewed().length > 0,
        'apiserver-newer added and ready',
        8_000,
      );
      expect(membership).toContainEqual(['apiserver-newer', 'added']);
      expect(core.servers.status('apiserver-newer')?.source).toBe('lease');
      await eventually(
        async () => (await get(NEW_ONLY)).route.includes('answering-id=apiserver-newer'),
        'the new-only GVR answered by apiserver-newer',
      );
    } finally {
      await core.close(0);
      await sim.close();
    }
  });

  it('a server found only by its address is gone when the address leaves the endpoints, and back when it returns', async () => {
    // A release without coordination.k8s.io leases: the servers write none and are found by the endpoints.
    const noLeases = pickCatalog(
      'no-leases',
      A_GVRS.filter((g) => !g.startsWith('coordination.k8s.io')),
    );
    const sim = await startSimCluster({ releases: [noLeases, noLeases], names: ['a', 'b'] });
    const { core, found, membership } = await coreFor(sim, { refreshMs: 100 });
    try {
      expect(found.warnings).toEqual([
        'cannot read the apiserver identity leases (HTTP 404: the server could not find the requested resource)',
      ]);
      const b = `127.0.0.1:${new URL(sim.server('b').info().url).port}`;
      expect(core.servers.status(b)?.source).toBe('endpoints');
      await sim.server('b').stop();
      await eventually(() => core.servers.health(b) === 'gone', `${b} gone`, 5_000);
      expect(core.servers.status(b)?.gone?.reason).toBe(`its address ${b} left the default/kubernetes endpoints`);
      await sim.server('b').start();
      await eventually(() => core.servers.health(b) === 'ready', `${b} back and ready`, 5_000);
      expect(membership).toEqual([
        [b, 'gone'],
        [b, 'back'],
      ]);
    } finally {
      await core.close(0);
      await sim.close();
    }
  });

  it('peerscope servers lists a server whose lease expired and whose address left the endpoints as gone', async () => {
    const sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      leaseDurationSeconds: 1,
    });
    try {
      await sim.server('new').stop();
      await new Promise((r) => setTimeout(r, 1_500));
      const file = writeKubeconfig(sim);
      const list = (output: string) =>
        new Promise<{ stdout: string; stderr: string }>((resolve) => {
          execFile(
            process.execPath,
            ['bin/peerscope', 'servers', '--kubeconfig', file, '--output', output],
            { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, HTTPS_PROXY: '' } },
            (_e, stdout, stderr) => resolve({ stdout, stderr }),
          );
        });
      const json = JSON.parse((await list('json')).stdout) as { servers: { name: string; health: string; error?: string }[] };
      expect(json.servers.map((s) => [s.name, s.health])).toEqual([
        ['apiserver-old', 'ready'],
        ['apiserver-new', 'gone'],
      ]);
      expect(json.servers[1]?.error).toMatch(/^gone: its identity lease expired at .* left the default\/kubernetes endpoints$/);
      const text = (await list('text')).stdout;
      console.log(text.trim());
      // The host name its lease gave, the lease name beside it (the LEASE column).
      expect(text).toMatch(/^new\s+apiserver-new\s+https:\/\/127\.0\.0\.1:\d+\s+-\s+gone\s+lease(\s+-\s+-)?$/m);
    } finally {
      await sim.close();
    }
  });
});
