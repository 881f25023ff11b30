// `peerscope demo`: the simulated control plane (three servers, two releases) with the local port in
// front, a rollout upgrading the servers one by one and traffic through the port — what `npm start`
// shows with no cluster and no Electron.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createCore } from '../core.js';
import { loadRelease } from '../sim/catalog/index.js';
import { startSimCluster } from '../sim/cluster.js';
import { startTraffic } from '../sim/traffic.js';
import { createSimController } from '../control/sim-controller.js';
import { startUiHost, type UiHost } from './ui.js';
import { formatPolicy } from '../proxy/policy.js';
import { onShutdown, parseListen, parsePolicyOption, parsePositiveInt, printRolloutEvent } from './options.js';

interface DemoFlags {
  from: string;
  to: string;
  servers: number;
  listen: { host: string; port: number };
  policy: ReturnType<typeof parsePolicyOption>;
  traffic: number;
  stepSeconds: number;
  startDelaySeconds: number;
  rollout: boolean;
  ui: boolean;
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run a simulated mixed-version control plane with the local port in front, a rollout and traffic')
    .option('--from <release>', 'release the servers start at', 'v1.36-dev')
    .option('--to <release>', 'release the rollout upgrades them to', 'v1.37-dev')
    .option('--servers <n>', 'how many simulated apiservers', parsePositiveInt, 3)
    .option('--listen <host:port>', 'where the local port listens', parseListen, { host: '127.0.0.1', port: 8001 })
    .option('--policy <policy>', 'round-robin, random or pin:NAME', parsePolicyOption, { kind: 'round-robin' })
    .option('--traffic <rps>', 'requests per second sent through the port', parsePositiveInt, 20)
    .option('--step-seconds <s>', 'seconds each rollout phase (draining, down) lasts', parsePositiveInt, 10)
    .option('--start-delay-seconds <s>', 'seconds before the rollout starts', parsePositiveInt, 15)
    .option('--no-rollout', 'keep the servers at --from')
    .option('--ui', 'serve the UI on a loopback port and print its URL (browser mode)', false)
    .action(async (flags: DemoFlags) => {
      const from = loadRelease(flags.from);
      const to = loadRelease(flags.to);
      const sim = await startSimCluster({ releases: Array.from({ length: flags.servers }, () => from), basePort: 0 });
      const core = createCore({
        servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, source: 'sim' as const, ...(sim.ca ? { ca: sim.ca } : {}), ...(sim.token ? { bearerToken: () => sim.token } : {}) })),
        listen: flags.listen,
        policy: flags.policy,
        probeIntervalMs: 1_000,
      });
      let address;
      try {
        address = await core.start();
      } catch (err) {
        await Promise.all([core.close(0), sim.close()]);
        process.stderr.write(`peerscope: cannot listen on ${flags.listen.host}:${flags.listen.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
        process.exit(2);
      }
      console.log(`Starting to serve on ${address.host}:${address.port}`);
      for (const s of sim.servers) console.log(`  ${s.name}  ${s.info().release}  ${s.info().url}`);
      const dir = mkdtempSync(join(tmpdir(), 'peerscope-demo-'));
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: peerscope\n  cluster:\n    server: ${address.url}\ncontexts:\n- name: peerscope\n  context:\n    cluster: peerscope\n    user: peerscope\nusers:\n- name: peerscope\n  user: {}\ncurrent-context: peerscope\n`, { mode: 0o600 });
      console.log(`Point kubectl at the port: kubectl --kubeconfig ${kubeconfig} api-resources`);
      console.log(`Routing trace on every response (X-Peerscope-Route); metrics at ${address.url}/.peerscope/metrics; policy ${formatPolicy(flags.policy)}`);
      const traffic = startTraffic({ targets: [address.url], rps: flags.traffic, releases: [from, to] });
      // One rollout driver for the timer and the UI's start/pause buttons.
      const rollout = createSimController({
        servers: sim.servers, from: flags.from, to, traffic, trafficRps: flags.traffic,
        rollout: { drainSeconds: flags.stepSeconds, downSeconds: flags.stepSeconds, onEvent: printRolloutEvent },
        onRolloutError: (err) => console.error(`rollout: ${err.message}`),
      });
      const timer = flags.rollout ? setTimeout(() => rollout.startRollout(), flags.startDelaySeconds * 1000) : undefined;
      let ui: UiHost | undefined;
      if (flags.ui) {
        ui = await startUiHost({ core, sim: rollout });
        console.log(`UI: ${ui.url}`);
      }
      onShutdown(async () => {
        clearTimeout(timer);
        await ui?.close();
        const rolloutClosed = rollout.close();
        const summary = await traffic.stop();
        await rolloutClosed;
        await core.close(2_000);
        await sim.close();
        const totals = core.telemetry.totals();
        console.log(`demo: ${summary.total ?? ''} requests sent; through the port: ${Object.entries(totals).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ')}`);
      });
    });
}
