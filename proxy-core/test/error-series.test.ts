// The Server health screen's error series, end to end: a server stops while the port still believes it
// ready; requests handed to it fail there (and are retried on another server), and each failure is counted
// against it in getHealthHistory — not against the server that answered instead.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createCoreService } from '../hosts/service/service.js';
import { createCore } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster } from '../sim/index.js';

describe('failed requests per server', () => {
  it('counts refused connections against the server that refused them', async () => {
    const v136 = loadRelease('v1.36-dev');
    const sim = await startSimCluster({ releases: [v136, v136] });
    const core = createCore({
      servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, ca: sim.ca!, bearerToken: () => sim.token })),
      listen: { port: 0 },
      // No probe during the test: the port learns of the stop only from the refused requests.
      probeIntervalMs: 600_000,
    });
    const service = createCoreService(core);
    try {
      const { url } = await core.start();
      await sim.servers[1]!.stop();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await request(`${url}/api/v1/namespaces/default/configmaps`);
        await res.body.text();
        statuses.push(res.statusCode);
      }
      // Round-robin handed some to sim-2; the load balancer's retry moved them to sim-1.
      expect(statuses.every((s) => s === 200)).toBe(true);
      const history = await service.getHealthHistory();
      const errors = (name: string) => (history.servers.find((s) => s.name === name)?.errors ?? []).reduce((n, b) => n + b.count, 0);
      expect(errors('sim-2')).toBeGreaterThanOrEqual(1);
      expect(errors('sim-1')).toBe(0);
    } finally {
      service.close();
      await core.close(0);
      await sim.close();
    }
  });
});
