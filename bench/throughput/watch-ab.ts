// The 100,000-event watch straight to the upstream and through ports started with different Node
// flags or environments, interleaved round by round: each port's median time against the direct
// watch of the same round, every process's CPU per watch, and how often each process's main thread
// waited (voluntary context switches) or was preempted (involuntary ones). For trying a V8 or libuv
// setting on the watch alone.
//
//   npx tsx bench/throughput/watch-ab.ts --rounds 12 --variant 'base' --variant 'gc1=--single-threaded-gc' [--pin 1,0]
// A variant is NAME, or NAME=FLAGS (space-separated Node flags), or NAME=FLAGS;K=V,K=V for an environment
// too, or NAME=FLAGS;ENV;CLI to run another build's CLI (a bin/peerscope built from another commit).
// --pin P,R: every port on CPU P, this process (the client) and the upstream on CPU R (taskset), to see
// what the kernel's placement of the three processes on two cores costs.
// --load S [--loaded NAME,NAME]: before the watches, GET, LIST and POST for S seconds each through
// those ports (all by default), as the full bench's watches follow its load.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadGenerator, timeWatch } from './load.js';
import { SCENARIOS } from './plan.js';
import { envSpec, flag } from './args.js';
import { contextSwitches, cpuSeconds } from './procs.js';
import { spread } from './stats.js';
import { startDirect, startPeerscope } from './node-targets.js';
import { experiment } from './setup.js';

const medianOf = (xs: readonly number[]): number => spread(xs)?.median ?? Number.NaN;
import type { Target } from './targets.js';

const rounds = Number(flag('--rounds', '12'));
const warm = Number(flag('--warm', '5'));
const pin = flag('--pin', '');
const loadSeconds = Number(flag('--load', '0'));
const loaded = flag('--loaded', '').split(',').filter(Boolean);
const specs = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--variant' ? [a] : []));
if (specs.length === 0) specs.push('base');

await experiment('watch-ab', async ({ files, old, neu, started }) => {
  const direct = startDirect(neu);
  started.push(direct);
  type Switches = { voluntary: number; involuntary: number };
  type Row = {
    name: string;
    target: Target;
    ratios: number[];
    ms: number[];
    cpu: number[];
    upstream: number[];
    client: number[];
    /** Per watch: the port's, the upstream's and the client's context switches. */
    switches: [Switches, Switches, Switches][];
  };
  const row = (name: string, target: Target): Row => ({
    name,
    target,
    ratios: [],
    ms: [],
    cpu: [],
    upstream: [],
    client: [],
    switches: [],
  });
  const base = row('direct', direct);
  const ports: Row[] = [];
  for (const spec of specs) {
    const [name, rest = ''] = spec.split(/=(.*)/s) as [string, string?];
    const [flags = '', env = '', cli = 'bin/peerscope'] = rest.split(';');
    const target = await startPeerscope(files, [old, neu], 'peerscope', flags.split(' ').filter(Boolean), envSpec(env), cli);
    started.push(target);
    ports.push(row(name, target));
  }
  if (pin) {
    const [portCpu, restCpu] = pin.split(',');
    const pinTo = (cpus: string | undefined, pid: number) => execFileSync('taskset', ['-a', '-p', '-c', String(cpus), String(pid)]);
    for (const p of ports) for (const pid of p.target.pids()) pinTo(portCpu, pid);
    for (const pid of [process.pid, ...neu.pids]) pinTo(restCpu, pid);
  }
  if (loadSeconds > 0) {
    const load = loadGenerator(files, join(files.dir, 'create.json'));
    for (const p of ports.filter((x) => loaded.length === 0 || loaded.includes(x.name)))
      for (const scenario of SCENARIOS) await load.run(p.target, scenario, { connections: 16, durationSeconds: loadSeconds });
  }
  for (let w = 0; w < warm; w++) for (const t of started) await timeWatch(t, files, 100_000);
  // Every process's CPU for one watch: the port's, the upstream's, and this process's (the client).
  const switchesOf = (p: Row): [Switches, Switches, Switches] => [
    contextSwitches(p.target.pids()),
    contextSwitches(neu.pids),
    contextSwitches([process.pid]),
  ];
  const since = (a: Switches, b: Switches): Switches => ({
    voluntary: b.voluntary - a.voluntary,
    involuntary: b.involuntary - a.involuntary,
  });
  const measure = async (p: Row): Promise<number> => {
    const s0 = switchesOf(p);
    const c0 = cpuSeconds(p.target.pids());
    const u0 = cpuSeconds(neu.pids);
    const own0 = process.cpuUsage();
    const ms = (await timeWatch(p.target, files, 100_000)).ms;
    const own = process.cpuUsage(own0);
    const s1 = switchesOf(p);
    p.switches.push([since(s0[0], s1[0]), since(s0[1], s1[1]), since(s0[2], s1[2])]);
    p.cpu.push((cpuSeconds(p.target.pids()) - c0) * 1000);
    p.upstream.push((cpuSeconds(neu.pids) - u0) * 1000);
    p.client.push((own.user + own.system) / 1000);
    p.ms.push(ms);
    return ms;
  };
  for (let r = 0; r < rounds; r++) {
    const ms = await measure(base);
    base.ratios.push(1);
    // Rotated so no port always follows the direct watch.
    for (let k = 0; k < ports.length; k++) {
      const p = ports[(k + r) % ports.length]!;
      p.ratios.push((await measure(p)) / ms);
    }
  }
  const switchText = (p: Row, i: number) =>
    `${medianOf(p.switches.map((s) => s[i]!.voluntary)).toFixed(0)}/${medianOf(p.switches.map((s) => s[i]!.involuntary)).toFixed(0)}`;
  for (const p of [base, ...ports])
    console.log(
      `${p.name.padEnd(14)} ${medianOf(p.ms).toFixed(0).padStart(4)} ms  ${medianOf(p.ratios).toFixed(2)}× direct ` +
        `(${Math.min(...p.ratios).toFixed(2)}–${Math.max(...p.ratios).toFixed(2)})  CPU per watch: port ${medianOf(p.cpu).toFixed(0)} ms, ` +
        `upstream ${medianOf(p.upstream).toFixed(0)} ms, client ${medianOf(p.client).toFixed(0)} ms; ` +
        `switches waited/preempted: port ${switchText(p, 0)}, upstream ${switchText(p, 1)}, client ${switchText(p, 2)}`,
    );
});
