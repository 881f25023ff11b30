// The traffic generator against two simulated servers of different releases, straight to the servers:
// bounded rate, every kind of client, acknowledged writes logged, and the 404s an older server gives.
import { describe, expect, it } from 'vitest';
import { catalogEntries, loadRelease } from './catalog/index.js';
import { startSimCluster } from './cluster.js';
import { startTraffic } from './traffic.js';

describe('traffic generator', () => {
  it('stays within its rate, exercises every kind and logs acknowledged writes', async () => {
    const releases = [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')];
    const sim = await startSimCluster({ releases });
    try {
      const traffic = startTraffic({ targets: sim.servers.map((s) => s.info().url), ca: sim.ca!, token: sim.token!, rps: 100, releases, seed: 7 });
      await new Promise((r) => setTimeout(r, 2_000));
      const summary = await traffic.stop();
      const started = Object.entries(summary.byKind).filter(([k]) => k !== 'ns-sweep').reduce((n, [, c]) => n + c, 0);
      // 2 s at 100/s plus a full bucket: never more than ~300 starts (sweeps fan out and are not counted).
      expect(started).toBeLessThanOrEqual(300);
      expect(started).toBeGreaterThan(50);
      for (const kind of ['list', 'create', 'get']) expect(summary.byKind[kind] ?? 0, kind).toBeGreaterThan(0);
      expect(summary.writes.some((w) => w.op === 'create' && w.uid)).toBe(true);
      expect(summary.watchEvents).toBeGreaterThan(0);
      // Straight to the servers, a GVR only the other release serves gets a 404: the false 404s
      // Peerscope prevents. Each one is a GVR the answering server lacks and the other serves.
      expect(summary.notFound.length).toBeGreaterThan(0);
      const serves = (release: number, gvr: string) => [...catalogEntries(releases[release]!)].some((e) => `${e.group}/${e.version}/${e.resource.name}` === gvr);
      for (const n of summary.notFound) {
        const at = sim.servers.findIndex((s) => s.info().url === n.target);
        expect(serves(at, n.gvr), `${n.gvr} at ${n.target}`).toBe(false);
        expect(serves(1 - at, n.gvr), `${n.gvr} elsewhere`).toBe(true);
      }
      // Every acknowledged create that was not deleted is in the store.
      const deleted = new Set(summary.writes.filter((w) => w.op === 'delete').map((w) => w.name));
      for (const w of summary.writes.filter((x) => x.op === 'create' && !deleted.has(x.name))) {
        const group = w.gvr.split('/')[0] as string;
        const resource = w.gvr.split('/')[2] as string;
        expect(sim.store.get({ group, resource }, w.namespace, w.name), w.name).toBeDefined();
      }
    } finally {
      await sim.close();
    }
  });
});
