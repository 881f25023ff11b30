// The rollout and traffic controls the UI drives, over fake servers whose every step waits for the
// test: start, pause between phases, resume to the end, a failure reported, traffic rate passed on.
import { describe, expect, it } from 'vitest';
import type { ReleaseCatalog } from '../../engine/releases/model.js';
import type { TrafficHandle } from '../../sim/traffic/index.js';
import type { SimServer, SimServerInfo } from '../../sim/types.js';
import { createSimController } from './sim-controller.js';

const target = { release: 'v1.37-dev' } as ReleaseCatalog;

function fakeServer(name: string, options: { failStart?: boolean } = {}): SimServer & { steps: string[] } {
  let release = 'v1.36-dev';
  const steps: string[] = [];
  return {
    name,
    steps,
    info: () => ({ name, url: 'http://127.0.0.1:1', release, gitVersion: `${release}.0`, state: 'ready' }) as SimServerInfo,
    release: () => ({ release }) as ReleaseCatalog,
    async start() {
      steps.push('start');
      if (options.failStart) throw new Error(`${name} did not come back`);
    },
    async drain() {
      steps.push('drain');
    },
    async stop() {
      steps.push('stop');
    },
    setRelease(r) {
      release = r.release;
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('sim controller', () => {
  it('starts, pauses between phases, resumes and finishes; reports each change', async () => {
    const servers = [fakeServer('sim-1'), fakeServer('sim-2')];
    const ctl = createSimController({ servers, from: 'v1.36-dev', to: target, rollout: { drainSeconds: 0, downSeconds: 0 } });
    let changes = 0;
    ctl.onChange(() => changes++);
    expect(ctl.status().rollout).toMatchObject({ phase: 'idle', from: 'v1.36-dev', to: 'v1.37-dev', upgraded: [] });
    ctl.pauseRollout(); // before the start: the start wins
    expect(ctl.startRollout().rollout.phase).toBe('running');
    ctl.pauseRollout();
    await until(() => ctl.status().rollout.phase === 'paused');
    const upgradedWhilePaused = ctl.status().rollout.upgraded.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(ctl.status().rollout.upgraded.length).toBe(upgradedWhilePaused);
    expect(ctl.startRollout().rollout.phase).toBe('running');
    await until(() => ctl.status().rollout.phase === 'done');
    expect(ctl.status().rollout.upgraded).toEqual(['sim-1', 'sim-2']);
    expect(servers[1]!.steps).toEqual(['drain', 'stop', 'start']);
    expect(changes).toBeGreaterThan(3);
    await ctl.close();
  });

  it('reports a failed rollout in its status and to the host', async () => {
    const errors: string[] = [];
    const ctl = createSimController({
      servers: [fakeServer('sim-1', { failStart: true })],
      from: 'v1.36-dev',
      to: target,
      rollout: { drainSeconds: 0, downSeconds: 0 },
      onRolloutError: (e) => errors.push(e.message),
    });
    ctl.startRollout();
    await until(() => ctl.status().rollout.phase === 'aborted' && errors.length > 0);
    expect(ctl.status().rollout.error).toBe('sim-1 did not come back');
    expect(errors).toEqual(['sim-1 did not come back']);
    await ctl.close();
  });

  it('passes the traffic rate on, and refuses it without a traffic generator', async () => {
    const rates: number[] = [];
    const traffic = { setRate: (n: number) => rates.push(n) } as unknown as TrafficHandle;
    const ctl = createSimController({ servers: [], from: 'v1.36-dev', to: target, traffic, trafficRps: 20 });
    expect(ctl.status().trafficRps).toBe(20);
    expect(ctl.setTrafficRate(250).trafficRps).toBe(250);
    expect(rates).toEqual([250]);
    const without = createSimController({ servers: [], from: 'v1.36-dev', to: target });
    expect(without.status().trafficRps).toBeUndefined();
    expect(() => without.setTrafficRate(1)).toThrow(/no traffic generator/);
  });
});
