// `peerscope audit`: what every apiserver itself answered, from its audit log — per server, client
// and GVR, false 404s first — as an operator runs it on a control-plane node or against copied logs.
// Its flags are here; what it runs (audit-run.ts) is loaded when it runs.
import { Option, type Command } from 'commander';
import { collectAuditInputSpec } from '../../engine/audit/index.js';
import { outputOption, parseNameEqualsUrl, parsePositiveInt } from './options.js';
import type { AuditFlags } from './audit-run.js';

export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description(
      "read kube-apiserver audit logs: per server, client and GVR, the requests each server answered, judged against the servers' discovery (false 404s, reroutes by the servers' own Mixed Version Proxy, real 404s)",
    )
    .addOption(
      new Option(
        '--audit-log <[server=]file>',
        'an audit log (--audit-log-path) and the server that wrote it (repeat for each; .gz is read compressed, - is standard input); a bare FILE goes to the one server whose address its own requests (user system:apiserver) come from, or whose name its path holds',
      )
        .argParser(collectAuditInputSpec)
        .makeOptionMandatory(),
    )
    .option('--rotated', "also read each file's rotated predecessors, oldest first (audit-<time>.log[.gz], audit.log.1[.gz])", false)
    .option('--follow', 'keep reading as the files grow (and are rotated), printing each false 404 as it comes, until Ctrl-C', false)
    .option('--kubeconfig <file>', "judge against the discovery of every apiserver of this kubeconfig's cluster, read now")
    .option('--context <name>', 'with --kubeconfig: the context (default: current-context)')
    .addOption(
      new Option('--server <name=url>', 'judge against the discovery of this apiserver, read now (repeat for each)')
        .argParser(parseNameEqualsUrl)
        .default([], 'none'),
    )
    .option('--ca <file>', 'with --server: PEM CA bundle that verifies https:// servers')
    .option('--token-file <file>', 'with --server: bearer token for the discovery reads')
    .option('--snapshot <file>', 'judge offline, against the servers a routing snapshot recorded (`peerscope snapshot save`)')
    .addOption(outputOption(['text', 'json']))
    .option('--top <n>', 'text output: rows shown per table', parsePositiveInt, 20)
    .action(async (flags: AuditFlags) => (await import('./audit-run.js')).runAudit(flags));
}
