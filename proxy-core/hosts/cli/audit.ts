// `peerscope audit`: what every apiserver itself answered, from its audit log — per server, client
// and GVR, false 404s first — as an operator runs it on a control-plane node or against copied logs.
import { Option, type Command } from 'commander';
import {
  formatAuditText,
  formatFinding,
  collectAuditInputSpec,
  readAuditLogs,
  matchAuditInputs,
  checkAuditInputs,
  type AuditInputSpec,
  type AuditJudgement,
} from '../../engine/audit/index.js';
import { judgementOf, type JudgeFlags } from './audit-judge.js';
import { progressLine } from './audit-progress.js';
import { outputOption, parseNameEqualsUrl, parsePositiveInt } from './options.js';
import { fail } from './usage.js';

interface AuditFlags extends JudgeFlags {
  auditLog: AuditInputSpec[];
  rotated: boolean;
  follow: boolean;
  output: 'text' | 'json';
  top: number;
}

/** Exit code of a read cancelled before its end (128 + SIGINT), after the partial report is printed. */
const EXIT_CANCELLED = 130;

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
    .action(async (flags: AuditFlags) => {
      const warn = (line: string) => process.stderr.write(`peerscope: ${line}\n`);
      let judgement: AuditJudgement;
      try {
        judgement = await judgementOf(flags, warn);
      } catch (err) {
        return fail((err as Error).message);
      }
      let inputs;
      try {
        // SERVER= names a server of the judgement (host name or lease name), or any name when none is known.
        checkAuditInputs(flags.auditLog, flags.follow);
        inputs = await matchAuditInputs(flags.auditLog, judgement.description.servers);
      } catch (err) {
        return fail((err as Error).message);
      }

      const cancel = new AbortController();
      // The first Ctrl-C ends the read and prints what was read; a second one ends the process at once.
      process.once('SIGINT', () => cancel.abort());
      process.once('SIGTERM', () => cancel.abort());
      const progress = progressLine();
      const report = await readAuditLogs(inputs, {
        judgement,
        rotated: flags.rotated,
        follow: flags.follow,
        signal: cancel.signal,
        ...(progress && !flags.follow ? { onProgress: progress.update } : {}),
        ...(flags.follow && flags.output === 'text'
          ? {
              onRequest: (record, outcome) => {
                const line = formatFinding(record, outcome);
                if (line) process.stdout.write(line + '\n');
              },
            }
          : {}),
      }).finally(() => progress?.stop());
      process.stdout.write(flags.output === 'json' ? JSON.stringify(report, null, 2) + '\n' : formatAuditText(report, flags.top));
      // A follow ends only by Ctrl-C: that is its normal end.
      process.exit(report.complete || flags.follow ? 0 : EXIT_CANCELLED);
    });
}
