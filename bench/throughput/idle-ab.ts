// The slower seconds after an idle spell, as an interleaved A/B of two environments: both ports are
// warmed with the scenario's requests (GET by default), sit idle together, then each is loaded second by second (order rotated each round),
// printing proxy CPU per request for each of those seconds.
//
//   npx tsx bench/throughput/idle-ab.ts --rounds 3 --idle 45 [--scenario get|list|post] --b-node '--min-semi-space-size=16' [--cpu-prof]
// (--a / --b: environment as 'K=V,K=V'; --a-node / --b-node: node flags, space-separated)
// --cpu-prof: port A runs under V8's profiler; the functions whose time per request differs most
// between the first second after idle and the third to fifth are printed (cpu-profile-windows.ts).
// --perf: port A's first second and its third to fifth recorded by `perf` (perf-split.ts), then split
// by kind of work and by function, side by side.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import { loadGenerator, type Scenario } from './load.js';
import { envSpec, flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startPeerscope } from './node-targets.js';
import type { Target, UpstreamProcess } from './targets.js';
import { printSideBySide } from './stats.js';
import { nowUs, readWindows, type Window } from './cpu-profile-windows.js';
import { splitPerf, startPerf, type PerfRecording } from './perf-split.js';

const rounds = Number(flag('--rounds', '3'));
const idleSeconds = Number(flag('--idle', '45'));
const slices = 5;
const scenario = flag('--scenario', 'get') as Scenario;
const variants = { A: envSpec(flag('--a', '')), B: envSpec(flag('--b', '')) };
const nodeFlags = { A: flag('--a-node', '').split(' ').filter(Boolean), B: flag('--b-node', '').split(' ').filter(Boolean) };
const useCpuProf = process.argv.includes('--cpu-prof');
const usePerf = process.argv.includes('--perf');
/** Port A's perf recordings: the first second after idle, and the third to fifth, per round. */
const perfFiles = { first: [] as { file: string; us: number }[], steady: [] as { file: string; us: number }[] };
/** Port A's seconds after idle: the first, and the third to fifth; with the CPU per request of each. */
const first = { windows: [] as Window[], us: [] as number[] };
const steady = { windows: [] as Window[], us: [] as number[] };

const dir = mkdtempSync(join(tmpdir(), 'peerscope-idle-'));
const upstreams: UpstreamProcess[] = [];
const targets: Partial<Record<'A' | 'B', Target>> = {};
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  const profDir = join(dir, 'profile');
  if (useCpuProf) nodeFlags.A.push('--cpu-prof', '--cpu-prof-dir', profDir);
  if (usePerf) nodeFlags.A.push('--perf-basic-prof');
  for (const k of ['A', 'B'] as const) targets[k] = await startPeerscope(files, [old!, neu!], 'peerscope', nodeFlags[k], variants[k]);
  const load = loadGenerator(files, join(dir, 'create.json'));
  for (let r = 0; r < rounds; r++) {
    for (const k of ['A', 'B'] as const) await load.run(targets[k]!, scenario, { connections: 16, durationSeconds: 3 });
    await sleep(idleSeconds * 1000);
    for (const k of r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const t = targets[k]!;
      const perSecond: string[] = [];
      let recording: PerfRecording | undefined;
      let steadyCpu0 = 0;
      let steadyRequests = 0;
      const perfFile = (part: string) => join(dir, `idle-${part}-${r}.perf.data`);
      for (let s = 0; s < slices; s++) {
        if (usePerf && k === 'A' && (s === 0 || s === 2)) {
          recording = await startPerf(t.pids()[0] as number, perfFile(s === 0 ? 'first' : 'steady'), 1000);
          if (!recording) throw new Error('--perf: perf is not installed (apt-get install linux-perf)');
          steadyCpu0 = cpuSeconds(t.pids());
        }
        const cpu0 = cpuSeconds(t.pids());
        const from = nowUs();
        const res = await load.run(t, scenario, { connections: 16, durationSeconds: 1 });
        const us = ((cpuSeconds(t.pids()) - cpu0) * 1e6) / res.requests;
        perSecond.push(us.toFixed(0));
        if (recording && s >= 2) steadyRequests += res.requests;
        if (recording && (s === 0 || s === slices - 1)) {
          await recording.stop();
          recording = undefined;
          if (s === 0) perfFiles.first.push({ file: perfFile('first'), us });
          else perfFiles.steady.push({ file: perfFile('steady'), us: ((cpuSeconds(t.pids()) - steadyCpu0) * 1e6) / steadyRequests });
        }
        const into = s === 0 ? first : s >= 2 ? steady : undefined;
        if (k === 'A' && into) {
          into.windows.push({ fromUs: from, toUs: nowUs() });
          into.us.push(us);
        }
      }
      console.log(
        `round ${r + 1} ${k} ${JSON.stringify(variants[k])} ${nodeFlags[k].join(' ')}: µs CPU per ${scenario.toUpperCase()} in the seconds after ${idleSeconds} s idle: ${perSecond.join(' ')}`,
      );
    }
  }
  if (usePerf) printPerfFirstAgainstSteady();
  if (useCpuProf) {
    await targets.A!.stop();
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('port A wrote no profile');
    printFirstAgainstSteady(join(profDir, file));
  }
} finally {
  await Promise.all(Object.values(targets).map((t) => t.stop()));
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}

/** Each function's inclusive time per request in the first second after idle against the steady seconds. */
function printFirstAgainstSteady(file: string): void {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const scaled = (part: typeof first) => {
    const w = readWindows(file, part.windows);
    const us = mean(part.us);
    return new Map([...w.inclusive].map(([k, n]) => [k, (us * n) / w.busy]));
  };
  const title = `inclusive CPU µs per ${scenario.toUpperCase()} (V8 profiler, port A): third to fifth second after idle, first, difference`;
  printSideBySide(title, scaled(steady), scaled(first), 40);
}

/** The same comparison from perf's samples: by kind of work, then the functions that differ most. */
function printPerfFirstAgainstSteady(): void {
  // Per part, each recording read once: both views scaled to its CPU per request, averaged.
  const sum = (parts: { file: string; us: number }[]) => {
    const byKind = new Map<string, number>();
    const byFunction = new Map<string, number>();
    for (const { file, us } of parts) {
      const split = splitPerf(file);
      for (const [into, shares] of [
        [byKind, split.shares],
        [byFunction, split.selfShares],
      ] as const)
        for (const [k, share] of shares) into.set(k, (into.get(k) ?? 0) + (us * share) / parts.length);
    }
    return { byKind, byFunction };
  };
  const [a, b] = [sum(perfFiles.steady), sum(perfFiles.first)];
  const heading = (what: string) =>
    `CPU µs per ${scenario.toUpperCase()} ${what} (perf, port A): third to fifth second after idle, first, difference`;
  printSideBySide(heading('by kind of work'), a.byKind, b.byKind, 20);
  printSideBySide(heading('self, by function'), a.byFunction, b.byFunction, 30);
}
