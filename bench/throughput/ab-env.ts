// An interleaved A/B of two environments for `peerscope serve` (A B A B …, order rotated each round):
// both ports run side by side in front of the same upstream; each round loads one, then the other, and
// prints req/s, proxy CPU per request and p99, then the medians with their spread.
//
//   npx tsx bench/throughput/ab-env.ts --scenario list --rounds 6 --seconds 3 --a 'NAME=1' --b 'NAME=0'
// A code switch under test reads its environment variable once at start. Two builds instead of two
// environments: --a-cli and --b-cli name each side's built CLI (a dist/cli.mjs built from another commit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import { loadGenerator, type Scenario } from './load.js';
import { envSpec, flag } from './args.js';
import { cpuSeconds, syscallCounts } from './procs.js';
import { startPeerscope } from './node-targets.js';
import type { Target, UpstreamProcess } from './targets.js';

const scenario = flag('--scenario', 'list') as Scenario;
const rounds = Number(flag('--rounds', '6'));
const seconds = Number(flag('--seconds', '3'));
const variants = { A: envSpec(flag('--a', '')), B: envSpec(flag('--b', '')) };
const clis = { A: flag('--a-cli', 'bin/peerscope'), B: flag('--b-cli', 'bin/peerscope') };

const dir = mkdtempSync(join(tmpdir(), 'peerscope-ab-'));
const upstreams: UpstreamProcess[] = [];
const targets: Partial<Record<'A' | 'B', Target>> = {};
const rows: Record<'A' | 'B', { rps: number[]; us: number[]; p99: number[] }> = {
  A: { rps: [], us: [], p99: [] },
  B: { rps: [], us: [], p99: [] },
};
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  for (const k of ['A', 'B'] as const) targets[k] = await startPeerscope(files, [old!, neu!], 'peerscope', [], variants[k], clis[k]);
  const load = loadGenerator(files, join(dir, 'create.json'));
  for (const k of ['A', 'B'] as const) await load.run(targets[k]!, scenario, { connections: 16, durationSeconds: 2 });
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const t = targets[k]!;
      const cpu0 = cpuSeconds(t.pids());
      const io0 = syscallCounts(t.pids());
      const res = await load.run(t, scenario, { connections: 16, durationSeconds: seconds });
      const us = ((cpuSeconds(t.pids()) - cpu0) * 1e6) / res.requests;
      const io1 = syscallCounts(t.pids());
      const rps = res.requests / (res.durationUs / 1e6);
      rows[k].rps.push(rps);
      rows[k].us.push(us);
      rows[k].p99.push(res.p99Us / 1000);
      const per = (n: number) => (n / res.requests).toFixed(2);
      console.log(
        `round ${r + 1} ${k}: ${Math.round(rps)} req/s, ${us.toFixed(1)} µs CPU/req, p99 ${(res.p99Us / 1000).toFixed(2)} ms, system calls per request: ${per(io1.reads - io0.reads)} reads, ${per(io1.writes - io0.writes)} writes`,
      );
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
  };
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  for (const k of ['A', 'B'] as const) {
    const { rps, us, p99 } = rows[k];
    console.log(
      `${k} ${JSON.stringify(variants[k])} ${scenario}: ${Math.round(median(rps))} req/s (${range(rps)}), ${median(us).toFixed(1)} µs/req (${range(us)}), p99 ${median(p99).toFixed(2)} ms (${range(p99)})`,
    );
  }
} finally {
  await Promise.all(Object.values(targets).map((t) => t.stop()));
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
