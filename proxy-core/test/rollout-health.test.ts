// During a simulated rollout the core's view follows each server: draining, unreachable, back ready
// at the new release, its discovery re-read (the rollout timeline), and the skew gone at the end.
import { describe, expect, it } from 'vitest';
import { createCore } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster } from '../sim/index.js';
import { runRollout } from '../sim/rollout.js';
import { eventually } from './harness.js';

describe('server health over a rollout', () => {
  it('follows each server through draining, down and back at the new release', async () => {
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    const sim = await startSimCluster({ releases: [from, to] });
    const core = createCore({
      servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, ca: sim.ca!, bearerToken: () => sim.token })),
      listen: { port: 0 },
      probeIntervalMs: 50,
    });
    try {
      await core.start();
      expect(core.routes.table.skewed().length).toBeGreaterThan(0);
      const seen: string[] = [];
      core.servers.on('health', (name) => {
        if (name === 'sim-1') seen.push(core.servers.health('sim-1'));
      });
      const changedBefore = core.servers.status('sim-1')?.discovery.changedAt ?? 0;
      // Phases long enough for a 50 ms probe to see each one on a loaded 2-core machine (0.4 s was missed).
      await runRollout(sim.servers, to, { drainSeconds: 1.5, downSeconds: 1 });
      await eventually(
        () => core.servers.status('sim-1')?.gitVersion === 'v1.37.0-dev' && core.routes.table.skewed().length === 0,
        'sim-1 seen at v1.37 with no skew left',
      );
      expect(seen).toContain('draining');
      expect(seen).toContain('unreachable');
      expect(seen.at(-1)).toBe('ready');
      expect(seen.indexOf('draining')).toBeLessThan(seen.indexOf('unreachable'));
      expect(core.servers.status('sim-1')?.discovery.changedAt).toBeGreaterThan(changedBefore);
      const history = core.servers.history('sim-1');
      expect(history.map((h) => h.gitVersion)).toContain('v1.36.0-dev');
      expect(history.at(-1)).toMatchObject({ health: 'ready', gitVersion: 'v1.37.0-dev' });
    } finally {
      await core.close(0);
      await sim.close();
    }
  });
});
