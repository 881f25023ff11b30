// A rollout of three simulated servers from v1.36-dev to v1.37-dev: draining → down → up for each,
// one at a time, ending with every server at the new release (read over the wire).
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster } from './cluster.js';
import { RolloutController, runRollout } from './rollout.js';
import type { SimEvent } from './types.js';

describe('rollout driver', () => {
  it('upgrades three servers one at a time and ends with all at the new release', async () => {
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    const sim = await startSimCluster({ releases: [from, from, from], http: true });
    try {
      const events: SimEvent[] = [];
      const outOfService = new Set<string>();
      let maxOut = 0;
      // What the servers themselves report, not only what the driver announces.
      const notReady = new Set<string>();
      let maxNotReady = 0;
      sim.onEvent((e) => {
        if (e.type !== 'server-state') return;
        if (e.state === 'ready') notReady.delete(e.server);
        else notReady.add(e.server);
        maxNotReady = Math.max(maxNotReady, notReady.size);
      });
      await runRollout(sim.servers, to, {
        drainSeconds: 0.05,
        downSeconds: 0.05,
        onEvent: (e) => {
          events.push(e);
          if (e.type !== 'rollout-step') return;
          if (e.phase === 'up') outOfService.delete(e.server);
          else outOfService.add(e.server);
          maxOut = Math.max(maxOut, outOfService.size);
        },
      });
      const steps = events.filter((e) => e.type === 'rollout-step').map((e) => (e.type === 'rollout-step' ? `${e.server}:${e.phase}` : ''));
      expect(steps).toEqual([
        'sim-1:draining',
        'sim-1:down',
        'sim-1:up',
        'sim-2:draining',
        'sim-2:down',
        'sim-2:up',
        'sim-3:draining',
        'sim-3:down',
        'sim-3:up',
      ]);
      expect(maxOut).toBe(1);
      expect(maxNotReady).toBe(1);
      expect(notReady.size).toBe(0);
      expect(events.at(-1)).toMatchObject({ type: 'rollout-done', release: 'v1.37-dev' });
      for (const s of sim.servers) {
        const res = await request(`${s.info().url}/version`);
        expect(((await res.body.json()) as { gitVersion: string }).gitVersion).toBe('v1.37.0-dev');
      }
    } finally {
      await sim.close();
    }
  });

  it('pauses between steps, skips servers already upgraded, and stops when aborted', async () => {
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    const sim = await startSimCluster({ releases: [to, from], http: true });
    try {
      const controller = new RolloutController();
      controller.pause();
      const seen: string[] = [];
      const done = runRollout(sim.servers, to, {
        drainSeconds: 0.01,
        downSeconds: 0.01,
        controller,
        onEvent: (e) => e.type === 'rollout-step' && seen.push(`${e.server}:${e.phase}`),
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([]);
      expect(controller.phase).toBe('paused');
      controller.resume();
      await done;
      expect(seen).toEqual(['sim-2:draining', 'sim-2:down', 'sim-2:up']);
      expect(controller.status()).toEqual({ phase: 'done', upgraded: ['sim-2'] });

      const abort = new AbortController();
      abort.abort();
      await runRollout(sim.servers, from, { signal: abort.signal });
      expect(sim.servers.map((s) => s.info().state)).toEqual(['ready', 'ready']);
    } finally {
      await sim.close();
    }
  });

  it('aborted while a server drains, brings that server back at its old release and goes no further', async () => {
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    const sim = await startSimCluster({ releases: [from, from], http: true });
    try {
      const abort = new AbortController();
      const seen: string[] = [];
      const done = runRollout(sim.servers, to, {
        drainSeconds: 30, // far longer than the test: the abort must not wait for it
        signal: abort.signal,
        onEvent: (e) => {
          if (e.type !== 'rollout-step') return;
          seen.push(`${e.server}:${e.phase}:${e.to}`);
          if (e.phase === 'draining') abort.abort();
        },
      });
      await done;
      expect(seen).toEqual(['sim-1:draining:v1.37-dev', 'sim-1:up:v1.36-dev']);
      expect(sim.servers.map((s) => [s.info().state, s.info().release])).toEqual([
        ['ready', 'v1.36-dev'],
        ['ready', 'v1.36-dev'],
      ]);
      const readyz = await request(`${sim.servers[0]!.info().url}/readyz`);
      expect(readyz.statusCode).toBe(200);
      await readyz.body.dump();
    } finally {
      await sim.close();
    }
  }, 10_000);
});
