// `peerscope demo`: the simulated control plane (three servers, two releases) with the local port in
// front, a rollout upgrading the servers one by one and traffic through the port — what `npm start`
// shows with no cluster and no Electron. Its flags are here; what it runs (demo-run.ts, with the
// simulator) is loaded when it runs, so no other command loads the simulator.
import { Option, type Command } from 'commander';
import { addPortFilterOptions } from './port-filter-options.js';
import { parsePositiveInt } from './options.js';
import { addPortOptions } from './port-options.js';
import type { DemoFlags } from './demo-run.js';

export function registerDemoCommand(program: Command): void {
  const command = program
    .command('demo')
    .description('run a simulated mixed-version control plane with the local port in front, a rollout and traffic')
    .addOption(new Option('--from <release>', 'release the servers start at').default('v1.36-dev', 'v1.36-dev'))
    .addOption(new Option('--to <release>', 'release the rollout upgrades them to').default('v1.37-dev', 'v1.37-dev'))
    .option('--servers <n>', 'how many simulated apiservers', parsePositiveInt, 3);
  addPortOptions(command, { discovery: false })
    .option('--traffic <rps>', 'requests per second sent through the port, and as many straight to the servers', parsePositiveInt, 20)
    .option('--step-seconds <s>', 'seconds each rollout phase (draining, down) lasts', parsePositiveInt, 10)
    .option('--start-delay-seconds <s>', 'seconds before the rollout starts', parsePositiveInt, 15)
    .option('--no-rollout', 'keep the servers at --from')
    .option('--ui', 'serve the UI on a loopback port and print its URL (browser mode)', false)
    .option(
      '--record <file>',
      "record the session into this new file (default: with --ui, into the app's recordings folder; else the demo's temporary folder, kept at exit)",
    )
    .option('--no-record', 'do not record the session');
  addPortFilterOptions(command).action(async (flags: DemoFlags) => (await import('./demo-run.js')).runDemo(flags));
}
