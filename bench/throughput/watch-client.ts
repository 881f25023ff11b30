// The 100,000-event watch as a controller receives it: a client-go program (the dynamic client,
// decoding every event into an object) straight to the upstream, through Peerscope and through
// kubectl proxy, rounds interleaved. The bench's own watch client only counts lines, the cheapest
// client there is; this one is what an informer costs.
//
//   npx tsx bench/throughput/watch-client.ts [--rounds 8] [--client PATH] [--port-flags '--max-semi-space-size=64']
// The client is scripts/kube/watch-client, which `npm run kube:build` builds (--client: another build).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { flag } from './args.js';
import { cpuSeconds, syscallCounts } from './procs.js';
import { spread } from './stats.js';
import { startKubectlProxy, writeKubeconfig } from './external-targets.js';
import { startDirect, startPeerscope } from './node-targets.js';
import { GROUP, NAMESPACE, RESOURCE, VERSION } from './objects.js';
import { experiment } from './setup.js';
import { builtClient } from '../../test/kube/binaries.js';
import type { Target } from './targets.js';

const built = builtClient('watch-client');
const client = flag('--client', 'path' in built ? built.path : '');
const rounds = Number(flag('--rounds', '8'));
/** Node flags for the port (space-separated), to try a V8 setting against a slow client. */
const portFlags = flag('--port-flags', '').split(' ').filter(Boolean);
if (!client) throw new Error(`watch-client: ${'missing' in built ? built.missing : 'not built'}`);

await experiment('watch-client', async ({ files, old, neu, started }) => {
  const targets: Target[] = [
    startDirect(neu),
    await startPeerscope(files, [old, neu], 'peerscope', portFlags),
    await startKubectlProxy(files, '/usr/bin/kubectl', neu),
  ];
  started.push(...targets);
  const configs = targets.map((t) =>
    writeKubeconfig(join(files.dir, `watch-client-${t.name}.kubeconfig`), t.url, t.direct ? files : undefined),
  );
  const ms = targets.map(() => [] as number[]);
  const proxyCpu = targets.map(() => [] as number[]);
  const proxyCalls = targets.map(() => [] as { reads: number; writes: number }[]);
  const watchOnce = (i: number, watches: number): number[] => {
    const out = execFileSync(client, [
      `--kubeconfig=${configs[i]}`,
      `--group=${GROUP}`,
      `--version=${VERSION}`,
      `--resource=${RESOURCE}`,
      `--namespace=${NAMESPACE}`,
      '--resource-version=1000',
      `--watches=${watches}`,
    ]).toString();
    return out
      .trim()
      .split('\n')
      .map((line) => {
        const [time, events] = line.split(' ').map(Number);
        if (events !== 100_000) throw new Error(`${targets[i]?.name}: ${events} of 100,000 events`);
        return time as number;
      });
  };
  for (let i = 0; i < targets.length; i++) watchOnce(i, 2);
  // What each proxy spends with nothing to relay (probes, discovery, telemetry), over as long as a watch takes.
  const idle0 = targets.map((t) => cpuSeconds(t.pids()));
  await new Promise((r) => setTimeout(r, 6_000));
  const idleMsPerSecond = targets.map((t, i) => ((cpuSeconds(t.pids()) - (idle0[i] ?? 0)) * 1000) / 6);
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < targets.length; k++) {
      const i = (k + r) % targets.length;
      const t = targets[i] as Target;
      const c0 = cpuSeconds(t.pids());
      const s0 = syscallCounts(t.pids());
      // Two watches in one client process: the first warms it (its connection, its decoder).
      const [, second] = watchOnce(i, 2);
      const s1 = syscallCounts(t.pids());
      proxyCpu[i]?.push(((cpuSeconds(t.pids()) - c0) * 1000) / 2);
      proxyCalls[i]?.push({ reads: (s1.reads - s0.reads) / 2, writes: (s1.writes - s0.writes) / 2 });
      ms[i]?.push(second as number);
    }
  const base = spread(ms[0] ?? [])?.median ?? Number.NaN;
  targets.forEach((t, i) => {
    const s = spread(ms[i] ?? []);
    console.log(
      `${t.name.padEnd(10)} ${s?.median.toFixed(0).padStart(5)} ms (${s?.min.toFixed(0)}–${s?.max.toFixed(0)})  ${((s?.median ?? 0) / base).toFixed(2)}× direct  ` +
        `proxy CPU per watch ${(spread(proxyCpu[i] ?? [])?.median ?? 0).toFixed(0)} ms, ` +
        `system calls ${(spread((proxyCalls[i] ?? []).map((c) => c.reads))?.median ?? 0).toFixed(0)} reads / ` +
        `${(spread((proxyCalls[i] ?? []).map((c) => c.writes))?.median ?? 0).toFixed(0)} writes; idle ${(idleMsPerSecond[i] ?? 0).toFixed(1)} ms of CPU a second`,
    );
  });
});
