// The promise Peerscope makes (issue: hold a whole rollout under load): while three simulated HTTPS
// apiservers go from v1.36-dev to v1.37-dev one at a time under ~200 requests/s, nothing through the
// port gets a 404 that a ready server would have answered, every acknowledged write is in the store
// exactly once, a 503 appears only while no ready server serves the GVR, and every watch continues
// or ends cleanly and resumes from its last resourceVersion without losing a change the store made.
// The same traffic straight to the servers (a round-robin load balancer) shows the false 404s
// Peerscope prevents. The run is also the body of the long soak in `npm run bench -- --soak-minutes N`.
import { describe, expect, it } from 'vitest';
import { createCore } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster } from '../sim/index.js';
import { runRollout } from '../sim/rollout.js';
import { startTraffic, type TrafficResult } from '../sim/traffic/index.js';
import { followReadiness, judgeRun, recordStoreChanges, type Judgement } from '../sim/traffic/judge.js';
import type { HandlingPolicy } from '../engine/proxy/policy.js';

const FROM = loadRelease('v1.36-dev');
const TO = loadRelease('v1.37-dev');
/** Slack for the health probe and in-flight requests around a state change, in ms. */
const SLACK_MS = 400;

type RunFigures = Judgement;

async function run(mode: 'peerscope' | 'direct', policy?: HandlingPolicy): Promise<RunFigures> {
  const sim = await startSimCluster({ releases: [FROM, FROM, FROM] });
  const readiness = followReadiness(sim);
  const core =
    mode === 'peerscope'
      ? createCore({
          servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, ca: sim.ca!, bearerToken: () => sim.token })),
          listen: { port: 0 },
          probeIntervalMs: 100,
          ...(policy ? { policy } : {}),
        })
      : undefined;
  const targets = core ? [(await core.start()).url] : sim.servers.map((s) => s.info().url);
  // The store's own history, to check what the watches received.
  const store = recordStoreChanges(sim.store, [FROM, TO]);
  const results: TrafficResult[] = [];
  const traffic = startTraffic({
    targets,
    ca: sim.ca!,
    token: sim.token!,
    rps: 200,
    releases: [FROM, TO],
    seed: 11,
    watches: 6,
    onResult: (r) => results.push(r),
  });
  await new Promise((r) => setTimeout(r, 500));
  await runRollout(sim.servers, TO, { drainSeconds: 0.5, downSeconds: 0.5, upSettleSeconds: 0.3 });
  await new Promise((r) => setTimeout(r, 500));
  const summary = await traffic.stop();
  store.stop();
  readiness.stop();
  const figures = judgeRun({
    results,
    summary,
    intervals: readiness.intervals(),
    store: sim.store,
    changes: store.changes,
    slackMs: SLACK_MS,
    // Pinned to a server that goes down, 503s are the design (spec P1), not a fault.
    judge503: policy?.kind !== 'pin',
    explain: (r) => {
      const e = core?.telemetry
        .recent()
        .find(
          (ev) => ev.status === r.status && `${ev.group}/${ev.version}/${ev.resource}` === r.gvr && Math.abs(ev.at - (r.at - r.ms)) < 1_000,
        );
      return e ? `handling ${e.handling}, answered by ${e.answeredBy}, ${e.outcome}` : undefined;
    },
  });
  await core?.close(0);
  await sim.close();
  return figures;
}

describe('a whole rollout under load', () => {
  it('no false 404, no lost or duplicated write, 503 only while nobody ready serves the GVR — and without Peerscope, false 404s', async () => {
    const roundRobin = await run('peerscope');
    const pinnedLast = await run('peerscope', { kind: 'pin', server: 'sim-3' });
    const direct = await run('direct');
    const row = (name: string, f: RunFigures) =>
      `${name.padEnd(38)} requests ${String(f.requests).padStart(5)}  false 404 ${String(f.falseNotFound).padStart(3)} (strict ${String(f.falseNotFoundStrict).padStart(3)})  no answer ${String(f.noAnswer).padStart(3)}  503 ${String(f.all503).padStart(4)} (unjustified ${f.unjustified503})  lost writes ${f.lostWrites} (uncertain ${f.uncertainWrites})  duplicated ${f.duplicateWrites}  watch events ${f.watchEvents}  statuses ${JSON.stringify(f.byStatus)}`;
    const watchRow = (name: string, f: RunFigures) => {
      const w = f.watches;
      return `${name.padEnd(38)} watches opened ${w.opened}, ended cleanly ${w.endedCleanly}, errored ${w.errored}, refused ${w.refused}, resumed ${w.resumed}, relisted ${w.relisted}, cut by the client at the end ${w.stoppedByClient}; events ${f.watchEvents}, store changes covered ${f.watchLoss.covered}, lost ${f.watchLoss.lost.length}, duplicated ${f.watchLoss.duplicated}, out of order ${f.watchLoss.outOfOrder}`;
    };
    console.log(
      [
        'rollout soak, 3 servers v1.36-dev → v1.37-dev, ~200 requests/s:',
        row('through Peerscope, round-robin', roundRobin),
        row('through Peerscope, pinned to sim-3', pinnedLast),
        row('straight to the servers (round-robin)', direct),
        watchRow('through Peerscope, round-robin', roundRobin),
        watchRow('through Peerscope, pinned to sim-3', pinnedLast),
        watchRow('straight to the servers (round-robin)', direct),
        ...[...roundRobin.examples, ...pinnedLast.examples].map((e) => `  ${e}`),
      ].join('\n'),
    );
    for (const f of [roundRobin, pinnedLast]) {
      expect(f.requests).toBeGreaterThan(50); // ~200/s for ~5 s asked; a loaded machine sends fewer
      expect(f.falseNotFound, f.examples.join('; ')).toBe(0);
      // Not even in the instant a server comes back: the port looks again after the request arrived.
      expect(f.falseNotFoundStrict, f.examples.join('; ')).toBe(0);
      expect(f.lostWrites).toBe(0);
      expect(f.duplicateWrites).toBe(0);
      expect(f.watchEvents).toBeGreaterThan(0);
      // Every watch through the port continues or ends cleanly, and resuming from the last
      // resourceVersion loses nothing the store did.
      expect(f.watches.errored, f.examples.join('; ')).toBe(0);
      expect(f.watchLoss.lost, f.examples.join('; ')).toEqual([]);
      expect(f.watchLoss.covered).toBeGreaterThan(0);
    }
    // The rollout must have cut some watch that was then resumed, or the loss check above proved
    // little. Judged over both runs: on a loaded machine one run's few watches (1–14 resumed) can all
    // fall between the server stops.
    expect(roundRobin.watches.resumed + pinnedLast.watches.resumed).toBeGreaterThan(0);
    expect(roundRobin.unjustified503, roundRobin.examples.join('; ')).toBe(0);
    expect(direct.falseNotFound).toBeGreaterThan(0);
    expect(direct.lostWrites).toBe(0);
  }, 120_000);
});
