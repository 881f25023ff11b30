// Smoke test of the throughput section of `npm run bench` in --quick mode: every target is measured
// or skipped with a reason, every request succeeded, every watch event arrived and Peerscope
// really rerouted about half the requests. Speed targets are judged by the bench, never here.
import { describe, expect, it } from 'vitest';
import { runThroughput } from './index.js';
import type { TargetName } from './targets.js';

const ALL: TargetName[] = ['direct', 'peerscope', 'peerscope-local', 'kubectl', 'nginx', 'bare-undici', 'node-floor', 'node-pipe'];
/** Relays a watch only. */
const WATCH_ONLY: TargetName[] = ['node-pipe'];

describe('throughput bench (quick smoke)', () => {
  it('measures every target or says why not, with real routing', async () => {
    const lines: string[] = [];
    const r = await runThroughput({ quick: true, log: (l) => lines.push(l) });
    const measured = r.targets.map((t) => t.name);
    for (const name of ALL) {
      const skip = r.skipped.find((s) => s.target === name);
      expect(measured.includes(name) || (skip !== undefined && skip.reason.length > 0), name).toBe(true);
    }
    // The Node targets need nothing but this repository.
    expect(measured).toEqual(expect.arrayContaining(['direct', 'peerscope', 'peerscope-local', 'bare-undici', 'node-floor', 'node-pipe']));
    expect(r.runs.length).toBe(measured.filter((t) => !WATCH_ONLY.includes(t)).length * 3);
    for (const run of r.runs) {
      expect(run.rps, `${run.target} ${run.scenario}`).toBeGreaterThan(0);
      expect(run.statusErrors, `${run.target} ${run.scenario}`).toBe(0);
      if (run.target !== 'direct') expect(Number.isFinite(run.proxyCpuUsPerRequest), `${run.target} ${run.scenario}`).toBe(true);
    }
    expect(r.watches.length).toBe(measured.length * r.plan.watchRounds);
    for (const w of r.watches) expect(w.events, w.target).toBe(r.plan.watchEvents);
    const o = r.peerscopeOutcomes;
    const routed = (o.local ?? 0) + (o.rerouted ?? 0);
    expect((o.rerouted ?? 0) / routed).toBeGreaterThan(0.3);
    expect((o.rerouted ?? 0) / routed).toBeLessThan(0.7);
    for (const c of r.checks) expect(c.ok !== undefined || c.skipped !== undefined || c.value === undefined, c.name).toBe(true);
    expect(lines.some((l) => l.includes('targets (judged on medians)'))).toBe(true);
  }, 180_000);
});
