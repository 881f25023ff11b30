// GET through two identical ports in interleaved rounds: one that serves only GET, one that before each
// round also serves LIST, POST and a watch, as every port in the full bench does. Says how much the mix
// of request shapes a process has served changes what a GET costs it.
//
//   npx tsx bench/throughput/mix-ab.ts --rounds 4 [--mix list,post,watch]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, prepareFiles, startUpstreams } from './setup.js';
import { loadGenerator, timeWatch } from './load.js';
import { flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startPeerscope } from './node-targets.js';
import type { Target, UpstreamProcess } from './targets.js';

const rounds = Number(flag('--rounds', '4'));
const mixed = flag('--mix', 'list,post,watch').split(',');
const dir = mkdtempSync(join(tmpdir(), 'peerscope-mix-ab-'));
const upstreams: UpstreamProcess[] = [];
const t: Target[] = [];
try {
  const files = await prepareFiles(dir);
  await bundle(files.buildDir);
  const [old, neu] = await startUpstreams(files, 2, 100_000, upstreams);
  t.push(await startPeerscope(files, [old!, neu!], 'peerscope'), await startPeerscope(files, [old!, neu!], 'peerscope'));
  const load = loadGenerator(files, join(dir, 'create.json'));
  for (const x of t) await load.run(x, 'get', { connections: 16, durationSeconds: 2 });
  for (let r = 0; r < rounds; r++) {
    for (const m of mixed)
      if (m === 'watch') await timeWatch(t[1]!, files, 100_000);
      else await load.run(t[1]!, m as 'list' | 'post', { connections: 16, durationSeconds: 3 });
    for (const i of r % 2 ? [1, 0] : [0, 1]) {
      const c0 = cpuSeconds(t[i]!.pids());
      const res = await load.run(t[i]!, 'get', { connections: 16, durationSeconds: 3 });
      const us = ((cpuSeconds(t[i]!.pids()) - c0) * 1e6) / res.requests;
      console.log(
        `round ${r + 1} ${i ? 'mixed   ' : 'GET only'} ${Math.round(res.requests / (res.durationUs / 1e6))} req/s ${us.toFixed(1)} µs CPU/req`,
      );
    }
  }
} finally {
  for (const x of t) await x.stop();
  await Promise.all(upstreams.map((u) => u.stop()));
  rmSync(dir, { recursive: true, force: true });
}
