// GET through two identical ports in interleaved rounds: one that serves only GET, one that before each
// round also serves LIST, POST and a watch, as every port in the full bench does. Says how much the mix
// of request shapes a process has served changes what a GET costs it.
//
//   npx tsx bench/throughput/mix-ab.ts --rounds 4 [--mix list,post,watch]
import { join } from 'node:path';
import { experiment } from './setup.js';
import { loadGenerator, timeWatch } from './load.js';
import { flag } from './args.js';
import { cpuSeconds } from './procs.js';
import { startPeerscope } from './node-targets.js';
import type { Target } from './targets.js';

const rounds = Number(flag('--rounds', '4'));
const mixed = flag('--mix', 'list,post,watch').split(',');
await experiment('mix-ab', async ({ files, old, neu, started: t }) => {
  t.push(await startPeerscope(files, [old, neu], 'peerscope'), await startPeerscope(files, [old, neu], 'peerscope'));
  const [only, mixedPort] = t as [Target, Target];
  const load = loadGenerator(files, join(files.dir, 'create.json'));
  for (const x of t) await load.run(x, 'get', { connections: 16, durationSeconds: 2 });
  for (let r = 0; r < rounds; r++) {
    for (const m of mixed)
      if (m === 'watch') await timeWatch(mixedPort, files, 100_000);
      else await load.run(mixedPort, m as 'list' | 'post', { connections: 16, durationSeconds: 3 });
    for (const x of r % 2 ? [mixedPort, only] : [only, mixedPort]) {
      const c0 = cpuSeconds(x.pids());
      const res = await load.run(x, 'get', { connections: 16, durationSeconds: 3 });
      const us = ((cpuSeconds(x.pids()) - c0) * 1e6) / res.requests;
      console.log(
        `round ${r + 1} ${x === mixedPort ? 'mixed   ' : 'GET only'} ${Math.round(res.requests / (res.durationUs / 1e6))} req/s ${us.toFixed(1)} µs CPU/req`,
      );
    }
  }
});
