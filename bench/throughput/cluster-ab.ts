// An interleaved A/B of one `peerscope serve` process against the same command in two node:cluster
// workers sharing the port (cluster-peerscope.ts): req/s, CPU per request and RSS of the whole
// process tree, per scenario. What a second process would buy against kubectl proxy's several threads.
//
//   npx tsx bench/throughput/cluster-ab.ts --scenario get --rounds 4 --seconds 3 [--workers 2]
import { join } from 'node:path';
import { experiment } from './setup.js';
import { loadGenerator, type Scenario } from './load.js';
import { flag } from './args.js';
import { cpuSeconds, processTree, rssMiB } from './procs.js';
import { startServing, stopChild } from './child-processes.js';
import { startPeerscope } from './node-targets.js';
import { startKubectlProxy } from './external-targets.js';
import type { Target } from './targets.js';

const scenario = flag('--scenario', 'get') as Scenario;
const rounds = Number(flag('--rounds', '4'));
const seconds = Number(flag('--seconds', '3'));
const workers = flag('--workers', '2');

await experiment('cluster-ab', async ({ files, old, neu, started }) => {
  started.push(await startPeerscope(files, [old, neu], 'peerscope'));
  const args = [
    ...[old, neu].flatMap((s) => ['--server', `${s.name}=${s.url}`]),
    ...['--ca', files.caFile, '--token-file', files.tokenFile, '--listen', '127.0.0.1:0', '--policy', 'round-robin'],
  ];
  const { child, port } = await startServing(process.execPath, [join(files.buildDir, 'cluster-peerscope.mjs'), workers, 'serve', ...args]);
  started.push({
    name: 'peerscope-local', // a label only: "Peerscope in N processes"
    url: `http://127.0.0.1:${port}`,
    direct: false,
    pids: () => processTree(child.pid as number),
    stop: () => stopChild(child),
  });
  started.push(await startKubectlProxy(files, '/usr/bin/kubectl', neu));
  const label = (t: Target) => (t.name === 'peerscope-local' ? `peerscope ×${workers}` : t.name);
  const load = loadGenerator(files, join(files.dir, 'create.json'));
  for (const t of started) await load.run(t, scenario, { connections: 16, durationSeconds: 2 });
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? started : [...started].reverse();
    for (const t of order) {
      const pids = t.pids();
      const cpu0 = cpuSeconds(pids);
      const res = await load.run(t, scenario, { connections: 16, durationSeconds: seconds });
      const cpu = cpuSeconds(pids) - cpu0;
      const wall = res.durationUs / 1e6;
      console.log(
        `round ${r + 1} ${label(t).padEnd(13)} ${Math.round(res.requests / wall)} req/s, ${((cpu * 1e6) / res.requests).toFixed(1)} µs CPU/req, ${(cpu / wall).toFixed(2)} cores, p99 ${(res.p99Us / 1000).toFixed(2)} ms, RSS ${rssMiB(pids).toFixed(1)} MiB (${pids.length} processes)`,
      );
    }
  }
});
