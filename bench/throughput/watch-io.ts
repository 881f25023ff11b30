// A 100,000-event watch through each proxy, round after round: its time, the proxy's CPU, and the
// proxy's read and write system calls with their average size (/proc/PID/io). Says how each proxy
// moves a watch's 65 MB, beside profile.ts's split of where the CPU goes.
//
//   npx tsx bench/throughput/watch-io.ts [--rounds 6] [--warm 5]
import { timeWatch } from './load.js';
import { flag } from './args.js';
import { cpuSeconds, syscallCounts } from './procs.js';
import { startDirect, startNodeFloor, startNodePipe, startPeerscope } from './node-targets.js';
import { startKubectlProxy } from './external-targets.js';
import { experiment } from './setup.js';

const rounds = Number(flag('--rounds', '6'));
const warm = Number(flag('--warm', '5'));

await experiment('watch-io', async ({ files, old, neu, started }) => {
  started.push(startDirect(neu));
  started.push(await startPeerscope(files, [old, neu], 'peerscope'));
  started.push(await startNodeFloor(files, neu));
  started.push(await startNodePipe(files, neu));
  started.push(await startKubectlProxy(files, '/usr/bin/kubectl', neu));
  // The first watches through a Node proxy still optimise its relay path on V8's compiler threads.
  for (let w = 0; w < warm; w++) for (const t of started) await timeWatch(t, files, 100_000);
  const kib = (bytes: number, calls: number) => (calls ? (bytes / calls / 1024).toFixed(1) : '—');
  for (let r = 0; r < rounds; r++)
    for (const t of started) {
      const pids = t.pids();
      const c0 = cpuSeconds(pids);
      const i0 = syscallCounts(pids);
      const w = await timeWatch(t, files, 100_000);
      const c1 = cpuSeconds(pids);
      const i1 = syscallCounts(pids);
      const writes = i1.writes - i0.writes;
      const reads = i1.reads - i0.reads;
      console.log(
        `${t.name.padEnd(11)} ${w.ms.toFixed(0).padStart(4)} ms` +
          (t.direct
            ? ''
            : `  CPU ${((c1 - c0) * 1000).toFixed(0).padStart(4)} ms  writes ${writes} (${kib(i1.writeBytes - i0.writeBytes, writes)} KiB each)  reads ${reads} (${kib(i1.readBytes - i0.readBytes, reads)} KiB each)`),
      );
    }
});
