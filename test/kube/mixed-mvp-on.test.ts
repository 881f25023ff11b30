// Real kube-apiservers of two releases with their own Mixed Version Proxy on (--peer-ca-file, the
// proxy client certificate, --peer-advertise-ip/port): the older server reroutes what only the newer
// serves by itself; Peerscope's merged discovery is held against each server's own peer-aggregated
// discovery, and every difference printed (docs/decisions.md lists them with their reason).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnMvp } from '../../proxy-core/contract/index.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { aggregatedGvrs, compareDiscovery, DISCOVERY_ACCEPT } from './discovery-compare.js';
import { peerscope, startServe, type Serve } from './peerscope-cli.js';
import { waitFor } from './processes.js';

const NEW_ONLY = 'storagemigration.k8s.io/v1/storageversionmigrations';

describe.skipIf(skipKube())('real kube-apiservers of two releases, their own MVP on', () => {
  let cp: ControlPlane;
  let serve: Serve;
  let names: Map<string, string>;
  const older = kubeBinaries?.older ?? '';
  const newer = kubeBinaries?.newer ?? '';

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: older },
        { host: 'kube-new', release: newer },
      ],
    });
    names = await cp.leaseNames();
    serve = await startServe(['--kubeconfig', cp.kubeconfig('kube-old'), '--server-metrics', '1']);
  });
  afterAll(async () => {
    await serve?.stop();
    await cp?.close();
  });

  it('servers: both found by their lease with their release, both own MVPs on', async () => {
    const r = await peerscope(['servers', '--kubeconfig', cp.kubeconfig('kube-new', { user: 'token' }), '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { servers: { name: string; release: string; foundBy: string; ownMvp?: OwnMvp }[] };
    expect(out.servers.map((s) => [s.name, s.release, s.foundBy, s.ownMvp?.verdict]).sort()).toEqual(
      [
        [names.get('kube-old'), older, 'lease', 'on'],
        [names.get('kube-new'), newer, 'lease', 'on'],
      ].sort(),
    );
  });

  it('the older server reroutes what only the newer serves by itself, and counts it', async () => {
    const path = '/apis/storagemigration.k8s.io/v1/storageversionmigrations';
    const res = await waitFor(
      "kube-old's own MVP answers the newer release's resource",
      async () => {
        const r = await cp.call('kube-old', path);
        return r.status === 200 ? r : undefined;
      },
      60_000,
    );
    expect(res.json().kind).toBe('StorageVersionMigrationList');
    expect((await cp.call('kube-old', '/metrics')).text).toMatch(
      /apiserver_rerouted_request_total\{code="200",group="storagemigration.k8s.io",resource="storageversionmigrations",version="v1"\} [1-9]/,
    );
  });

  it("snapshot save --kubeconfig records each server's own MVP and what it rerouted", async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'kube-snap-')), 'snap.json');
    const r = await peerscope(['snapshot', 'save', '--kubeconfig', cp.kubeconfig('kube-old'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const snap = JSON.parse(readFileSync(out, 'utf8')) as { servers: { name: string; gitVersion?: string; ownMvp?: OwnMvp }[] };
    const old = snap.servers.find((s) => s.name === names.get('kube-old'));
    expect(old?.gitVersion).toBe(older);
    expect(old?.ownMvp).toMatchObject({ verdict: 'on', metrics: { state: 'exposed' } });
    expect(old?.ownMvp?.metrics.rerouted.some((x) => x.labels.resource === 'storageversionmigrations' && x.value > 0)).toBe(true);
  });

  it("Peerscope's merged discovery against each server's own peer-aggregated discovery: every difference listed", async () => {
    const own = async (host: string) =>
      waitFor(
        `${host}'s peer-aggregated discovery lists ${NEW_ONLY}`,
        async () => {
          const doc = (await cp.call(host, '/apis', { headers: { accept: DISCOVERY_ACCEPT } })).json();
          return aggregatedGvrs(doc).has(NEW_ONLY) ? doc : undefined;
        },
        60_000,
      );
    const res = await request(`${serve.url}/apis`, { headers: { accept: DISCOVERY_ACCEPT } });
    expect(res.headers['x-peerscope-route']).toContain('outcome=discovery-merged');
    const merged = await res.body.json();
    for (const host of ['kube-old', 'kube-new']) {
      const diff = compareDiscovery(merged, await own(host), ['Peerscope', host]);
      console.log(
        `merged discovery (Peerscope, handling server by round-robin) vs ${host}'s own peer-aggregated /apis: ${diff.summary}${diff.details.map((d) => `\n  ${d}`).join('')}`,
      );
      expect(diff.onlyLeft).toEqual([]);
      expect(diff.onlyRight).toEqual([]);
    }
  });
});
