// Snapshots of a running core before and after a simulated rollout step: the diff names what the
// step changed, the file round-trips, and no credential byte is ever in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { runRollout } from '../sim/rollout.js';
import { diffSnapshots, parseSnapshot, serializeSnapshot, takeSnapshot } from '../engine/snapshot/index.js';
import { eventually } from './harness.js';

describe('snapshots around a rollout step', () => {
  let sim: SimCluster;
  let core: Core;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.36-dev')] });
    core = createCore({
      servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, ca: sim.ca!, bearerToken: () => sim.token })),
      listen: { port: 0 },
      probeIntervalMs: 50,
    });
    await core.start();
  });
  afterAll(async () => {
    await core?.close(0);
    await sim?.close();
  });

  it('the diff of before/after one server is upgraded names the upgrade, the GVRs it gained and lost, and the new skew', async () => {
    const before = takeSnapshot(core, { source: 'sim', documents: true });
    await runRollout([sim.server('sim-1')], loadRelease('v1.37-dev'), { drainSeconds: 0.1, downSeconds: 0.1 });
    await eventually(
      () => core.servers.status('sim-1')?.gitVersion === 'v1.37.0-dev' && core.routes.table.skewed().length > 0,
      'sim-1 seen at v1.37',
    );
    const after = takeSnapshot(core, { source: 'sim', documents: true });
    const d = diffSnapshots(parseSnapshot(serializeSnapshot(before), 'before.json'), parseSnapshot(serializeSnapshot(after), 'after.json'));
    expect(d.servers.upgraded).toEqual([{ name: 'sim-1', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }]);
    const sim1 = d.gvrs.find((g) => g.server === 'sim-1');
    expect(sim1?.gained).toContain('storagemigration.k8s.io/v1/storageversionmigrations');
    expect(sim1?.lost).toContain('scheduling.k8s.io/v1alpha1/workloads');
    expect(d.skew.became).toContain('lifecycle.k8s.io/v1alpha1/evictionrequests');
    expect(before.routeTable.skewed).toEqual([]);
    // The merged document as the port served it: before, every server's own; after, the union of both
    // releases (what a client of an old server saw), answered by a ready server.
    expect(before.mergedDiscovery?.gvrs).toEqual(before.servers[0]!.discovery.gvrs);
    const union = [...new Set(after.servers.flatMap((s) => s.discovery.gvrs))].sort();
    expect(after.mergedDiscovery?.gvrs).toEqual(union);
    expect(after.servers.find((s) => s.name === after.mergedDiscovery?.handling)?.health).toBe('ready');
  });

  it('round-trips and holds no credential byte: no token, no CA key, no kubeconfig text', () => {
    const snap = takeSnapshot(core, { source: 'sim', documents: true });
    const text = serializeSnapshot(snap);
    expect(parseSnapshot(text, 'snap.json')).toEqual(snap);
    expect(sim.token && sim.token.length > 10).toBe(true);
    expect(text).not.toContain(sim.token!);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('BEGIN CERTIFICATE');
    expect(text.toLowerCase()).not.toContain('bearer');
    expect(text).not.toContain('client-key');
  });
});
