// Profiles one proxy under one scenario: the same upstream and load as the bench, the proxy started
// with `node --cpu-prof` (and optionally `--trace-gc`), then the hottest functions by self time.
//
//   npx tsx bench/throughput/profile.ts [--target peerscope|peerscope-local|bare-undici|node-floor|http-floor|node-pipe] [--scenario get|list|post|watch]
//                                       [--seconds 10] [--connections 16] [--trace-gc] [--top 40] [--perf]
// The .cpuprofile is kept in bench/results/profiles/ (open it in Chrome DevTools or speedscope).
// --perf: instead of V8's profiler, `perf record` during the measured seconds (perf-split.ts): the CPU
// split as the kernel sees it, every thread, kernel time included.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadGenerator, timeWatch, type Scenario } from './load.js';
import { flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startBareUndici, startHttpFloor, startNodeFloor, startNodePipe, startPeerscope } from './node-targets.js';
import { bundle, prepareFiles, startUpstreams, steadyClient } from './setup.js';
import { printPerfSplit, splitPerf, startPerf, type PerfRecording } from './perf-split.js';
import type { Target, UpstreamProcess } from './targets.js';
import { functionKey, type ProfileNode } from './cpu-profile-windows.js';

const targetName = flag('--target', 'peerscope');
const scenario = flag('--scenario', 'get') as Scenario | 'watch';
const seconds = Number(flag('--seconds', '10'));
const connections = Number(flag('--connections', '16'));
const top = Number(flag('--top', '40'));
const usePerf = process.argv.includes('--perf');
const outDir = resolve('bench/results/profiles');
mkdirSync(outDir, { recursive: true });

/** Where a sampled function comes from: the proxy's own bundle, undici, node:http, the rest of Node, native. */
function originOf(f: ProfileNode['callFrame']): string {
  if (f.url.includes('node_modules/undici') || f.url.startsWith('wasm')) return 'undici (JavaScript and llhttp)';
  if (f.url.startsWith('node:')) return /node:_http|node:http/.test(f.url) ? 'node:http' : 'Node (streams, events, timers, net, TLS)';
  if (f.url.includes('/dist/') || f.url.includes('floor-proxy') || f.url.includes('bare-proxy')) return 'the proxy itself';
  if (f.url === '') {
    if (/^\(/.test(f.functionName)) return f.functionName; // (garbage collector), (program)
    return /^write/.test(f.functionName) ? `native ${f.functionName} (a socket write)` : 'native, other';
  }
  return 'other';
}

let cost = { value: 0, unit: 'µs per request' };
let recording: PerfRecording | undefined;
const perfFile = join(outDir, `${targetName}-${scenario}.perf.data`);
async function record(t: Target): Promise<PerfRecording | undefined> {
  if (!usePerf) return undefined;
  const r = await startPerf(t.pids()[0] as number, perfFile);
  if (!r) throw new Error('--perf: perf is not installed (apt-get install linux-perf)');
  return r;
}
steadyClient();
const dir = mkdtempSync(join(tmpdir(), 'peerscope-profile-'));
const upstreams: UpstreamProcess[] = [];
let target: Target | undefined;
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  const flags = usePerf
    ? ['--perf-basic-prof']
    : ['--cpu-prof', '--cpu-prof-dir', outDir, ...(process.argv.includes('--trace-gc') ? ['--trace-gc'] : [])];
  const before = new Set(readdirSync(outDir));
  target =
    targetName === 'bare-undici'
      ? await startBareUndici(files, neu, flags)
      : targetName === 'node-floor'
        ? await startNodeFloor(files, neu, flags)
        : targetName === 'http-floor'
          ? await startHttpFloor(files, neu, flags)
          : targetName === 'node-pipe'
            ? await startNodePipe(files, neu, flags)
            : await startPeerscope(
                files,
                targetName === 'peerscope-local' ? [neu] : [old, neu],
                targetName === 'peerscope-local' ? 'peerscope-local' : 'peerscope',
                flags,
              );
  if (scenario === 'watch') {
    // Watches of 100,000 events one after another for the measured seconds, after five to warm the
    // JIT (the first watches still optimise their relay path on V8's compiler threads).
    for (let i = 0; i < 5; i++) await timeWatch(target, files, 100_000);
    recording = await record(target);
    const cpu0 = cpuSeconds(target.pids());
    const times: number[] = [];
    for (const until = Date.now() + seconds * 1000; Date.now() < until;) times.push((await timeWatch(target, files, 100_000)).ms);
    const cpuMs = ((cpuSeconds(target.pids()) - cpu0) * 1000) / times.length;
    cost = { value: cpuMs, unit: 'ms per watch' };
    times.sort((a, b) => a - b);
    console.log(
      `${targetName} watch: ${times.length} watches, median ${times[times.length >> 1]!.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms CPU each`,
    );
  } else {
    const load = loadGenerator(files, join(dir, 'create.json'));
    await load.run(target, scenario, { connections, durationSeconds: 2 });
    recording = await record(target);
    const cpu0 = cpuSeconds(target.pids());
    const r = await load.run(target, scenario, { connections, durationSeconds: seconds });
    const cpu1 = cpuSeconds(target.pids());
    cost = { value: ((cpu1 - cpu0) * 1e6) / r.requests, unit: 'µs per request' };
    console.log(
      `${targetName} ${scenario}: ${Math.round(r.requests / (r.durationUs / 1e6))} req/s, p99 ${(r.p99Us / 1000).toFixed(2)} ms, ${Math.round(((cpu1 - cpu0) * 1e6) / r.requests)} µs CPU per request, ${r.statusErrors} error statuses`,
    );
  }
  await recording?.stop();
  await target.stop();
  target = undefined;
  if (usePerf) printPerfSplit(splitPerf(perfFile), cost);
  else {
    const file = readdirSync(outDir).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
    if (!file) throw new Error('no profile written');
    const profile = JSON.parse(readFileSync(join(outDir, file), 'utf8')) as { nodes: ProfileNode[] };
    const self = new Map<string, number>();
    const byOrigin = new Map<string, number>();
    let total = 0;
    let idle = 0;
    for (const n of profile.nodes) {
      const hits = n.hitCount ?? 0;
      total += hits;
      const f = n.callFrame;
      const key = functionKey(f);
      self.set(key, (self.get(key) ?? 0) + hits);
      if (f.functionName === '(idle)') idle += hits;
      else byOrigin.set(originOf(f), (byOrigin.get(originOf(f)) ?? 0) + hits);
    }
    console.log(`profile: ${join(outDir, file)} (${total} samples); top ${top} by self time:`);
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
    // The busy samples by where the code comes from, scaled to the CPU measured per request (or watch).
    console.log(`self time by origin, ${cost.unit} (busy samples scaled to the measured CPU):`);
    for (const [k, v] of [...byOrigin].sort((a, b) => b[1] - a[1]))
      console.log(`${((cost.value * v) / (total - idle)).toFixed(1).padStart(7)}  ${k}`);
  }
} finally {
  await target?.stop();
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
