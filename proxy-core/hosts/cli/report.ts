// `peerscope report`: which clients an upgrade affects, from the requests a running port has seen
// (--from), that a routing snapshot recorded (--snapshot), or that the apiservers' own audit events
// recorded (--audit-log files, or batches their audit webhook posts for --for DURATION), against a
// target release (--to). Its flags are here; what it runs (report-run.ts) is loaded when it runs.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { impactKinds, type ImpactKind } from '../../contract/impact.js';
import { addAuditWebhookOptions } from './audit-webhook-flags.js';
import { collectAuditInputSpec } from '../../engine/audit/index.js';
import { EXIT } from './usage.js';
import { addPortUrlOptions, outputOption, portUrlOf } from './options.js';
import type { ReportFlags } from './report-run.js';

export function registerReportCommand(program: Command): void {
  const command = program
    .command('report')
    .description(
      'upgrade impact: the clients that call what the target release removes, what only some servers serve, what only the target serves, and what apiservers warn is deprecated',
    );
  addPortUrlOptions(command)
    .option('--snapshot <file>', 'read a routing snapshot instead of a running port')
    .option(
      '--to <release>',
      'the target release: from the catalog (`peerscope catalog list`) or a --release-file name (default: the next catalog release above the current servers)',
    )
    .addOption(
      new Option(
        '--release-file <name=file>',
        'a release NAME from captured discovery documents (/apis and /api or /api/v1; repeat for each file), as `peerscope sim` takes them',
      )
        .argParser(collectReleaseFile)
        .default(new Map(), 'none'),
    )
    .addOption(
      new Option(
        '--audit-log <[server=]file>',
        "count the clients in the apiservers' own audit logs instead (repeat for each; as `peerscope audit` reads them), judged against the servers of --snapshot, --kubeconfig or the running port",
      )
        .argParser(collectAuditInputSpec)
        .default([], 'none'),
    )
    .option('--rotated', "with --audit-log: also read each file's rotated predecessors", false)
    .option('--kubeconfig <file>', "with --audit-log: the current servers are this kubeconfig's cluster, their discovery read now")
    .option('--context <name>', 'with --kubeconfig: the context (default: current-context)')
    .addOption(outputOption(['text', 'json', 'markdown']))
    .option(
      '--fail-on <kinds>',
      `exit ${EXIT.findings} when the report has a finding of these kinds (comma-separated: ${impactKinds.join(', ')}), for a CI gate`,
      parseFailOn,
    )
    .option('--allow-empty', `exit 0 when no request was seen at all (otherwise ${EXIT.nothingSeen}: nothing was judged)`, false)
    .option(
      '--for <duration>',
      'with --audit-webhook-listen: how long to collect the batches the servers post before reporting (30s, 5m, 1h; Ctrl-C reports early)',
      parseDuration,
    );
  addAuditWebhookOptions(command, ', for --for, and report their clients as --audit-log does').action(async (flags: ReportFlags) => {
    // From here on `from` is the running port's URL, however it was given.
    flags.from = portUrlOf(flags, command);
    await (await import('./report-run.js')).runReport(flags);
  });
}

/** `removed,skewed` → the impact kinds a finding fails the gate for. */
function parseFailOn(value: string): ImpactKind[] {
  const kinds = value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(impactKinds as readonly string[]).includes(k));
  if (kinds.length === 0 || unknown.length > 0)
    throw new InvalidArgumentError(`"${unknown[0] ?? value}" is not a finding kind (${impactKinds.join(', ')})`);
  return kinds as ImpactKind[];
}

/** "90", "90s", "5m", "1h", "500ms" → milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`"${value}" is not a duration (30s, 5m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(m[1]) * unit;
  if (ms <= 0) throw new InvalidArgumentError(`"${value}" is not a duration above 0`);
  return ms;
}

function collectReleaseFile(value: string, previous: Map<string, string[]> = new Map()): Map<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InvalidArgumentError(`"${value}" is not NAME=FILE`);
  const name = value.slice(0, eq);
  const next = new Map(previous);
  next.set(name, [...(next.get(name) ?? []), value.slice(eq + 1)]);
  return next;
}
