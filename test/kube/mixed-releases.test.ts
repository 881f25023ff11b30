// Real kube-apiservers, shape "mixed releases": one of each release on one etcd, both with their own
// Mixed Version Proxy off — the older as kubeadm leaves it (the gate on, no --peer-ca-file), the
// newer with the gate switched off. Peerscope finds both, authenticates as the kubeconfig says,
// refuses a wrong CA by name, reroutes what only the newer serves; and the simulated control plane
// is held against the real one where the two should agree.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnMvp } from '../../proxy-core/contract/index.js';
import { catalogEntries, loadRelease } from '../../proxy-core/engine/releases/index.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { aggregatedGvrs, DISCOVERY_ACCEPT } from './discovery-compare.js';
import { kubectl, peerscope, startServe, type Serve } from './peerscope-cli.js';
import { compareWithSim, type SimComparison } from './sim-compare.js';
import { parseRouteHeader } from '../../proxy-core/engine/proxy/route-header.js';

const NEW_ONLY = 'storageversionmigrations.v1.storagemigration.k8s.io';
const MIGRATION = `apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata:
  name: secrets-to-v1
spec:
  resource: {group: "", resource: secrets}
`;

interface ServersJson {
  servers: {
    name: string;
    displayName: string;
    url: string;
    release: string | null;
    health: string;
    foundBy: string;
    ownMvp?: OwnMvp;
    error?: string;
  }[];
  warnings: string[];
}

describe.skipIf(skipKube())('real kube-apiservers of two releases, their own MVP off', () => {
  let cp: ControlPlane;
  let dir: string;
  let names: Map<string, string>;
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: older, mvp: 'no-peer-ca' },
        { host: 'kube-new', release: newer, mvp: 'gate-off' },
      ],
    });
    names = await cp.leaseNames();
    dir = mkdtempSync(join(tmpdir(), 'kube-mixed-'));
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('servers (client certificate) finds both with their release: the older by its lease, the newer (gate off, no address on its lease) by the endpoints; both own MVPs off, said why', async () => {
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old'), '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as ServersJson;
    const byUrl = new Map(out.servers.map((s) => [s.url, s]));
    const oldRow = byUrl.get(cp.server('kube-old').url);
    const newRow = byUrl.get(cp.server('kube-new').url);
    expect(oldRow).toMatchObject({
      name: names.get('kube-old'),
      displayName: 'kube-old',
      release: older,
      health: 'ready',
      foundBy: 'lease',
    });
    expect(newRow).toMatchObject({ name: new URL(cp.server('kube-new').url).host, release: newer, health: 'ready', foundBy: 'endpoints' });
    expect(out.warnings).toEqual([
      `lease ${names.get('kube-new')} has no kubernetes.io/peer-advertise-address annotation (the feature gate is off); its address comes from the endpoints`,
    ]);
    expect(oldRow?.ownMvp?.summary).toBe(
      `kube-old's own Mixed Version Proxy is off: no --peer-ca-file (the feature gate is on, but without a peer CA the server proxies nothing; kubeadm does not set it)`,
    );
    expect(newRow?.ownMvp?.summary).toBe(
      `${newRow?.name}'s own Mixed Version Proxy is off: the UnknownVersionInteroperabilityProxy feature gate is off (it is on by default since v1.36: set off with --feature-gates)`,
    );
    for (const row of [oldRow, newRow]) expect(row?.ownMvp?.metrics.state).toBe('not-exposed');
    // As told: without its proxy the older server's default /apis is its own, not peer-aggregated.
    expect(oldRow?.ownMvp?.peerAggregatedDiscovery).toBe('no');
    const oldApis = aggregatedGvrs((await cp.call('kube-old', '/apis', { headers: { accept: DISCOVERY_ACCEPT } })).json());
    expect(oldApis.has('storagemigration.k8s.io/v1/storageversionmigrations')).toBe(false);
    const text = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old')]);
    console.log(text.stdout);
    expect(text.stdout).toMatch(/OWN MVP\s+REROUTED/);
    expect(text.stdout).toContain('its /metrics exposes no peer-proxy counters (no peer proxy to count)');
  });

  it('a token from the kubeconfig authenticates too; a user RBAC forbids the leases and endpoints is told so', async () => {
    const token = JSON.parse(
      (await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-new', { user: 'token' }), '--output', 'json'])).stdout,
    ) as ServersJson;
    expect(token.servers.map((s) => s.release).sort()).toEqual([older, newer]);
    const viewer = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-new', { user: 'viewer' }), '--output', 'json']);
    const v = JSON.parse(viewer.stdout) as ServersJson;
    expect(v.warnings[0]).toMatch(
      /^cannot read the apiserver identity leases \(HTTP 403: leases.coordination.k8s.io is forbidden: User "token-viewer" cannot list/,
    );
  });

  it("a kubeconfig whose CA did not sign the servers' certificates is refused, naming the server", async () => {
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-old', { ca: 'wrong' })]);
    console.log(`wrong CA: exit ${r.code}; ${(r.stderr + r.stdout).trim()}`);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(cp.server('kube-old').url);
    expect(r.stderr).toMatch(/certificate/i);
  });

  it('serve pinned to the older server: kubectl creates, reads and deletes what only the newer serves; the object is stored on the newer', async () => {
    const serve: Serve = await startServe(['--kubeconfig', cp.kubeconfig('kube-old'), '--policy', `pin:${names.get('kube-old')}`]);
    try {
      writeFileSync(join(dir, 'migration.yaml'), MIGRATION);
      const k = kubectl({ server: serve.url }, join(dir, 'cache'));
      // The union of both releases, though every request lands on the older server first.
      const resources = await k(['api-resources', '--no-headers', '-o', 'name']);
      expect(resources.code, resources.stderr).toBe(0);
      expect(resources.stdout.split('\n')).toContain('storageversionmigrations.storagemigration.k8s.io');
      const created = await k(['create', '-f', join(dir, 'migration.yaml')]);
      expect(created.code, created.stderr).toBe(0);
      const direct = await cp.call('kube-new', '/apis/storagemigration.k8s.io/v1/storageversionmigrations/secrets-to-v1');
      expect(direct.status, direct.text).toBe(200);
      // The older server alone, its own MVP off, does not know the resource: the false 404 Peerscope avoids.
      expect((await cp.call('kube-old', '/apis/storagemigration.k8s.io/v1/storageversionmigrations/secrets-to-v1')).status).toBe(404);
      const res = await request(`${serve.url}/apis/storagemigration.k8s.io/v1/storageversionmigrations/secrets-to-v1`);
      await res.body.text();
      expect(parseRouteHeader(String(res.headers['x-peerscope-route']))).toEqual({
        handling: names.get('kube-old'),
        answering: new URL(cp.server('kube-new').url).host,
        outcome: 'rerouted',
      });
      const deleted = await k(['delete', NEW_ONLY, 'secrets-to-v1']);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect((await cp.call('kube-new', '/apis/storagemigration.k8s.io/v1/storageversionmigrations/secrets-to-v1')).status).toBe(404);
    } finally {
      await serve.stop();
    }
  });

  let comparison: SimComparison;
  it('the simulated control plane agrees with the real one: identity lease and endpoints shape, common error Status bodies', async () => {
    comparison = await compareWithSim(cp, 'kube-old');
    console.log(comparison.report.join('\n'));
    expect(comparison.disagreements, comparison.disagreements.join('\n')).toEqual([]);
  });

  it('the simulated releases serve what the real releases serve by default (differences listed)', async () => {
    for (const [host, release, sim] of [
      ['kube-old', older, 'v1.36-dev'],
      ['kube-new', newer, 'v1.37-dev'],
    ] as const) {
      const real = new Set<string>();
      for (const path of ['/api', '/apis'])
        for (const k of aggregatedGvrs((await cp.call(host, path, { headers: { accept: `${DISCOVERY_ACCEPT};profile=nopeer` } })).json()))
          real.add(k.includes('/') && k.split('/').length === 2 ? `/${k}` : k);
      const simulated = new Set([...catalogEntries(loadRelease(sim))].map((e) => `${e.group}/${e.version}/${e.resource.name}`));
      const onlyReal = [...real].filter((k) => !simulated.has(k)).sort();
      const onlySim = [...simulated].filter((k) => !real.has(k)).sort();
      console.log(
        `${release} (real, defaults) vs ${sim} (simulated): ${real.size} vs ${simulated.size} GVRs; only real: ${onlyReal.join(', ') || 'none'}; only simulated: ${onlySim.join(', ') || 'none'}`,
      );
      // The catalog's releases are development builds of the same minor: they may serve more, never less.
      expect(onlyReal).toEqual([]);
    }
  });
});
