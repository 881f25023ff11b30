// With no server ready (every one draining, or etcd down failing them all), the port's 503 Status
// names each server, its state and what failed: the operator sees why, not only that.
import { describe, expect, it } from 'vitest';
import { A_GVRS, B_GVRS, eventually, startBed } from './harness.js';

describe('no server ready', () => {
  it('the 503 Status names every server with its state and failing checks', async () => {
    const bed = await startBed({ A: A_GVRS, B: B_GVRS });
    try {
      void bed.sim.server('A').drain(60_000);
      void bed.sim.server('B').drain(60_000);
      await eventually(
        () => bed.core.servers.health('A') !== 'ready' && bed.core.servers.health('B') !== 'ready',
        'A and B to be seen not ready',
      );
      const r = await bed.get('/apis/apps/v1/deployments');
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
      const { message } = r.json<{ message: string }>();
      expect(message).toMatch(
        /^no apiserver is ready: apiserver "A" draining \(failing: [^)]*shutdown[^)]*\); apiserver "B" draining \(failing: [^)]*shutdown[^)]*\)$/,
      );
      expect(r.route()).toBe('handling=-; answering=-; outcome=unavailable');
    } finally {
      await bed.close();
    }
  });
});
