// The slower seconds after an idle spell, as an interleaved A/B of two environments: both ports are
// warmed with the scenario's requests (GET by default), sit idle together, then each is loaded second by second (order rotated each round),
// printing proxy CPU per request for each of those seconds.
//
//   npx tsx bench/throughput/idle-ab.ts --rounds 3 --idle 45 [--scenario get|list|post] --b-node '--min-semi-space-size=16'
// (--a / --b: environment as 'K=V,K=V'; --a-node / --b-node: node flags, space-separated)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import { loadGenerator, type Scenario } from './load.js';
import { envSpec, flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startPeerscope } from './node-targets.js';
import type { Target, UpstreamProcess } from './targets.js';

const rounds = Number(flag('--rounds', '3'));
const idleSeconds = Number(flag('--idle', '45'));
const slices = 5;
const scenario = flag('--scenario', 'get') as Scenario;
const variants = { A: envSpec(flag('--a', '')), B: envSpec(flag('--b', '')) };
const nodeFlags = { A: flag('--a-node', '').split(' ').filter(Boolean), B: flag('--b-node', '').split(' ').filter(Boolean) };

const dir = mkdtempSync(join(tmpdir(), 'peerscope-idle-'));
const upstreams: UpstreamProcess[] = [];
const targets: Partial<Record<'A' | 'B', Target>> = {};
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  for (const k of ['A', 'B'] as const) targets[k] = await startPeerscope(files, [old!, neu!], 'peerscope', nodeFlags[k], variants[k]);
  const load = loadGenerator(files, join(dir, 'create.json'));
  for (let r = 0; r < rounds; r++) {
    for (const k of ['A', 'B'] as const) await load.run(targets[k]!, scenario, { connections: 16, durationSeconds: 3 });
    await sleep(idleSeconds * 1000);
    for (const k of r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const t = targets[k]!;
      const perSecond: string[] = [];
      for (let s = 0; s < slices; s++) {
        const cpu0 = cpuSeconds(t.pids());
        const res = await load.run(t, scenario, { connections: 16, durationSeconds: 1 });
        perSecond.push((((cpuSeconds(t.pids()) - cpu0) * 1e6) / res.requests).toFixed(0));
      }
      console.log(
        `round ${r + 1} ${k} ${JSON.stringify(variants[k])} ${nodeFlags[k].join(' ')}: µs CPU per ${scenario.toUpperCase()} in the seconds after ${idleSeconds} s idle: ${perSecond.join(' ')}`,
      );
    }
  }
} finally {
  await Promise.all(Object.values(targets).map((t) => t.stop()));
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
