// GET through two identical ports in interleaved rounds: one that serves only GET, one that before each
// round also serves LIST, POST and a watch, as every port in the full bench does. Says how much the mix
// of request shapes a process has served changes what a GET costs it.
//
//   npx tsx bench/throughput/mix-ab.ts --rounds 4 [--mix list,post,watch] [--target peerscope|http-floor|node-floor]
//                                      [--perf | --cpu-prof] [--node-flags '--flag …']
// --perf: `perf record` on each port during its GET runs, then the functions whose self time per GET
// differs most between the two ports (needs the port started with --perf-basic-prof, which --perf adds).
// --cpu-prof: each port under V8's profiler, read for its GET runs only: the functions whose inclusive
// time per GET differs most (inlined functions keep their own line, unlike under perf).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { experiment } from './setup.js';
import { loadGenerator, timeWatch } from './load.js';
import { flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startHttpFloor, startNodeFloor, startPeerscope } from './node-targets.js';
import { splitPerf, startPerf } from './perf-split.js';
import { nowUs, readWindows, type Window } from './cpu-profile-windows.js';
import type { Target } from './targets.js';
import { printSideBySide } from './stats.js';

const rounds = Number(flag('--rounds', '4'));
const mixed = flag('--mix', 'list,post,watch').split(',');
const targetName = flag('--target', 'peerscope');
const usePerf = process.argv.includes('--perf');
const nodeFlags = [...flag('--node-flags', '').split(' ').filter(Boolean), ...(usePerf ? ['--perf-basic-prof'] : [])];

const outDir = resolve('bench/results/profiles');
const useCpuProf = process.argv.includes('--cpu-prof');
if (usePerf || useCpuProf) mkdirSync(outDir, { recursive: true });
const profDir = join(outDir, 'mix-ab');
if (useCpuProf) rmSync(profDir, { recursive: true, force: true });
/** The port's --cpu-prof flags: its profile lands in a directory of its own. */
const profFlags = (label: string) => (useCpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(profDir, label)] : []);

/** What each port's GET runs measured: CPU per GET, when they ran, and perf's split of it (mean of the rounds). */
interface PortRuns {
  readonly cpuPerGet: number[];
  readonly windows: Window[];
  readonly byKind: Map<string, number>;
  readonly byFunction: Map<string, number>;
}
const newRuns = (): PortRuns => ({ cpuPerGet: [], windows: [], byKind: new Map(), byFunction: new Map() });
const runs = { 'GET only': newRuns(), mixed: newRuns() };
/** Adds `shares` of `us` µs, one round's part of the mean, to `into`. */
function addShares(into: Map<string, number>, shares: ReadonlyMap<string, number>, us: number): void {
  for (const [k, share] of shares) into.set(k, (into.get(k) ?? 0) + (us * share) / rounds);
}

await experiment('mix-ab', async ({ files, old, neu, started: t }) => {
  // The floors show whether Node and undici alone pay the same (they serve "new" only, no rerouting).
  const start = (label: string) => {
    const flags = [...nodeFlags, ...profFlags(label)];
    return targetName === 'http-floor'
      ? startHttpFloor(files, neu, flags)
      : targetName === 'node-floor'
        ? startNodeFloor(files, neu, flags)
        : startPeerscope(files, [old, neu], 'peerscope', flags);
  };
  t.push(await start('only'), await start('mixed'));
  const [only, mixedPort] = t as [Target, Target];
  const load = loadGenerator(files, join(files.dir, 'create.json'));
  for (const x of t) await load.run(x, 'get', { connections: 16, durationSeconds: 2 });
  for (let r = 0; r < rounds; r++) {
    for (const m of mixed)
      if (m === 'watch') await timeWatch(mixedPort, files, 100_000);
      else await load.run(mixedPort, m as 'list' | 'post', { connections: 16, durationSeconds: 3 });
    for (const x of r % 2 ? [mixedPort, only] : [only, mixedPort]) {
      const label = x === mixedPort ? 'mixed' : 'GET only';
      const port = runs[label];
      const perfFile = join(outDir, `mix-ab-${r}-${x === mixedPort ? 'mixed' : 'only'}.perf.data`);
      const recording = usePerf ? await startPerf(x.pids()[0] as number, perfFile, 1000) : undefined;
      const c0 = cpuSeconds(x.pids());
      const from = nowUs();
      const res = await load.run(x, 'get', { connections: 16, durationSeconds: 3 });
      port.windows.push({ fromUs: from, toUs: nowUs() });
      const us = ((cpuSeconds(x.pids()) - c0) * 1e6) / res.requests;
      port.cpuPerGet.push(us);
      await recording?.stop();
      console.log(
        `round ${r + 1} ${label.padEnd(8)} ${Math.round(res.requests / (res.durationUs / 1e6))} req/s ${us.toFixed(1)} µs CPU/req`,
      );
      if (recording) {
        const split = splitPerf(perfFile);
        addShares(port.byKind, split.shares, us);
        addShares(port.byFunction, split.selfShares, us);
      }
    }
  }
});

if (usePerf) {
  const kinds = 'CPU µs per GET by kind of work (perf, mean of the rounds): GET only, mixed, difference';
  printSideBySide(kinds, runs['GET only'].byKind, runs.mixed.byKind, 20);
  const fns = 'self CPU µs per GET by function (perf, mean of the rounds): GET only, mixed, difference';
  printSideBySide(fns, runs['GET only'].byFunction, runs.mixed.byFunction, 40);
}

if (useCpuProf) {
  // Each function's share of the busy samples in the GET runs, scaled to the port's mean CPU per GET.
  const per = (label: 'GET only' | 'mixed', dir: string) => {
    const file = readdirSync(join(profDir, dir)).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written in ${join(profDir, dir)}`);
    const w = readWindows(join(profDir, dir, file), runs[label].windows);
    const us = runs[label].cpuPerGet.reduce((a, b) => a + b, 0) / rounds;
    const scale = (m: ReadonlyMap<string, number>) => new Map([...m].map(([k, n]) => [k, (us * n) / w.busy]));
    return { self: scale(w.self), inclusive: scale(w.inclusive) };
  };
  const a = per('GET only', 'only');
  const b = per('mixed', 'mixed');
  for (const kind of ['inclusive', 'self'] as const)
    printSideBySide(`${kind} CPU µs per GET (V8 profiler, GET runs only): GET only, mixed, difference`, a[kind], b[kind]);
}
