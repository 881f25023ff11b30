// Experiment: one 100,000-event watch through each proxy — time, proxy CPU, and its write system calls
// and bytes (/proc/PID/io), to see where a watch's CPU goes beside the profile.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeWatch } from './load.js';
import { flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startDirect, startNodeFloor, startPeerscope } from './node-targets.js';
import { startKubectlProxy } from './external-targets.js';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import type { Target, UpstreamProcess } from './targets.js';

const rounds = Number(flag('--rounds', '8'));
function io(pids: readonly number[]) {
  let syscw = 0, wchar = 0, syscr = 0, rchar = 0;
  for (const pid of pids) {
    const t = readFileSync(`/proc/${pid}/io`, 'utf8');
    const g = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(t)?.[1] ?? 0);
    syscw += g('syscw'); wchar += g('wchar'); syscr += g('syscr'); rchar += g('rchar');
  }
  return { syscw, wchar, syscr, rchar };
}
const dir = mkdtempSync(join(tmpdir(), 'peerscope-watchio-'));
const upstreams: UpstreamProcess[] = [];
const targets: Target[] = [];
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  targets.push(startDirect(neu!));
  targets.push(await startPeerscope(files, [old!, neu!], 'peerscope', (process.env.PS_FLAGS ?? '').split(' ').filter(Boolean), Object.fromEntries((process.env.PS_ENV ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]))));
  targets.push(await startNodeFloor(files, neu!));
  targets.push(await startKubectlProxy(files, '/usr/bin/kubectl', neu!));
  for (let w = 0; w < Number(flag('--warm', '1')); w++) for (const t of targets) await timeWatch(t, files, 100_000);
  const perfOf = targets.find((t) => t.name === flag('--perf', ''));
  const perf = perfOf && spawn('perf', ['record', '-e', 'cpu-clock', '-g', '-o', '/tmp/watch.perf', '-p', String(perfOf.pids()[0])], { stdio: 'inherit' });
  if (perf) await new Promise((r) => setTimeout(r, 500));
  for (let r = 0; r < rounds; r++)
    for (const t of targets) {
      const pids = t.pids();
      const c0 = cpuSeconds(pids), i0 = pids.length ? io(pids) : undefined;
      const w = await timeWatch(t, files, 100_000);
      const c1 = cpuSeconds(pids), i1 = pids.length ? io(pids) : undefined;
      const s = i0 && i1 ? `writes ${i1.syscw - i0.syscw} (${((i1.wchar - i0.wchar) / (i1.syscw - i0.syscw) / 1024).toFixed(1)} KiB each) reads ${i1.syscr - i0.syscr} (${((i1.rchar - i0.rchar) / (i1.syscr - i0.syscr) / 1024).toFixed(1)} KiB each)` : '';
      console.log(`${t.name.padEnd(10)} ${w.ms.toFixed(0).padStart(4)} ms  CPU ${((c1 - c0) * 1000).toFixed(0).padStart(4)} ms  ${s}`);
    }
  if (perf) { perf.kill('SIGINT'); await new Promise((r) => perf.once('exit', r)); }
} finally {
  for (const t of targets) await t.stop();
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
