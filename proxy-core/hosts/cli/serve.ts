// `peerscope serve`: the local port in front of every apiserver of a cluster. Its flags are
// serve-flags.ts's; what it runs is serve-run.ts, loaded when serve runs (the other commands never load the port).
import type { Command } from 'commander';
import { addAuditWebhookOptions } from './audit-webhook-flags.js';
import { addServeOptions, addServerOptions, type ServeFlags } from './serve-flags.js';

export function registerServeCommand(program: Command): void {
  const command = addServerOptions(
    program
      .command('serve')
      .description('serve a local port (like kubectl proxy) that routes every request by the Mixed Version Proxy rules'),
  );
  addServeOptions(command).action(async (flags: ServeFlags) => {
    const { serve } = await import('./serve-run.js');
    await serve(flags, command.getOptionValueSource('serverRefresh') === 'cli');
  });
  // Listed last in --help: the receiver is a listener of its own beside the port.
  addAuditWebhookOptions(command, ' and count them in /.peerscope/metrics as --audit-log does');
}
