// `peerscope servers`: the apiservers found from a kubeconfig, by host name beside their lease name, with
// release, health and how each was found. `peers`, its name before issue 31, is still accepted: "peer"
// now means only what KEP-4020 means (a server other than the handling one).
// Its flags are here; what it runs (servers-run.ts) is loaded when it runs.
import type { Command } from 'commander';
import { outputOption } from './options.js';

export function registerServersCommand(program: Command): void {
  program
    .command('servers')
    .alias('peers')
    .description(
      'list the apiservers of a cluster found from a kubeconfig (identity leases, default/kubernetes endpoints); renamed from peers (the old name still works)',
    )
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context (default: current-context)')
    .addOption(outputOption(['text', 'json']))
    .action(async (flags: { kubeconfig?: string; context?: string; output: string }, command: Command) =>
      (await import('./servers-run.js')).listServers(flags, command),
    );
}
