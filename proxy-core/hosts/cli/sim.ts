// `peerscope sim`: the simulated control plane on its own — servers of real releases on loopback,
// optionally a rollout and traffic — for rehearsals and for pointing any tool at it. Its flags are
// sim-flags.ts's; the simulator (sim-run.ts) is loaded when sim runs, so no other command loads it.
import type { Command } from 'commander';
import { addSimOptions, type SimFlags } from './sim-flags.js';

export function registerSimCommand(program: Command): void {
  addSimOptions(
    program.command('sim').description('run simulated kube-apiservers of real Kubernetes releases on loopback, sharing one object store'),
  ).action(async (flags: SimFlags) => (await import('./sim-run.js')).runSim(flags));
}
