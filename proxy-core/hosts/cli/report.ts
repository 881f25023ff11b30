// `peerscope report`: which clients an upgrade affects, from the requests a running port has seen
// (--from), that a routing snapshot recorded (--snapshot), or that the apiservers' own audit events
// recorded (--audit-log files, or batches their audit webhook posts for --for DURATION), against a
// target release (--to).
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { impactKinds, impactReportSchema, type ImpactKind, type ImpactReport } from '../../contract/impact.js';
import type { RoutingSnapshot } from '../../contract/snapshot.js';
import { formatImpactMarkdown, formatImpactText, nothingSeen } from '../../engine/impact/format.js';
import { impactReportOfSnapshot } from '../../engine/impact/of-core.js';
import { AuditUsage, impactOfAuditLogs } from '../../engine/impact/of-audit.js';
import { classifyAuditRecord } from '../../engine/audit/classify.js';
import { RequestDedupe } from '../../engine/audit/dedupe.js';
import { startAuditWebhook, type AuditWebhook } from '../../engine/audit/webhook/receiver.js';
import { progressLine } from './audit-progress.js';
import { addAuditWebhookOptions, auditWebhookOf, webhookProblemLog, type AuditWebhookFlags } from './audit-webhook-flags.js';
import type { ImpactTarget } from '../../engine/impact/report.js';
import { ServerNames } from '../../engine/cluster/server-names.js';
import { resolveWebhookTokens } from '../../engine/audit/webhook/senders.js';
import { catalogTarget, defaultTargetName, targetOf } from '../../engine/impact/targets.js';
import {
  checkAuditInputs,
  collectAuditInputSpec,
  judgeBySnapshot,
  matchAuditInputs,
  type AuditInputSpec,
  type AuditJudgement,
} from '../../engine/audit/index.js';
import { loadReleaseFiles } from '../../engine/releases/index.js';
import { parseSnapshot, readSnapshotFile } from '../../engine/snapshot/index.js';
import { Agent, request } from '../../engine/upstream/undici.js';
import { InputError } from '../../engine/util/input-error.js';
import { judgementOf } from './audit-judge.js';
import { EXIT, fail } from './usage.js';
import { addPortUrlOptions, outputOption, portUrlOf, unreachablePort } from './options.js';

interface ReportFlags extends AuditWebhookFlags {
  for?: number;
  /** The running port's URL once portUrlOf has read --port-url (or --from, its old name). */
  from: string;
  portUrl: string;
  failOn?: ImpactKind[];
  allowEmpty: boolean;
  snapshot?: string;
  to?: string;
  releaseFile: Map<string, string[]>;
  output: 'text' | 'json' | 'markdown';
  auditLog: AuditInputSpec[];
  rotated: boolean;
  kubeconfig?: string;
  context?: string;
}

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
    const audited = flags.auditLog.length > 0 || flags.auditWebhookListen !== undefined;
    const report = await guard(() => (audited ? reportOfAuditLogs(flags) : makeReport(flags)));
    const text =
      flags.output === 'json'
        ? JSON.stringify(report, null, 2) + '\n'
        : flags.output === 'markdown'
          ? formatImpactMarkdown(report)
          : formatImpactText(report);
    process.stdout.write(text);
    process.exitCode = gateStatus(report, flags);
  });
}

async function makeReport(flags: ReportFlags): Promise<ImpactReport> {
  if (flags.for !== undefined) throw new InputError('--for', 'goes with --audit-webhook-listen: how long to collect the posted batches');
  if (flags.kubeconfig || flags.context)
    throw new InputError('--kubeconfig', 'goes with --audit-log: a report of the port or a snapshot has its servers');
  const files = releaseFilesOf(flags);
  // A catalog release against a running port: the port makes the report itself.
  if (!flags.snapshot && !files)
    return impactReportSchema.parse(
      JSON.parse(await get(flags.from, `/.peerscope/impact${flags.to ? `?to=${encodeURIComponent(flags.to)}` : ''}`)),
    );
  const snapshot: RoutingSnapshot = flags.snapshot
    ? readSnapshotFile(flags.snapshot)
    : parseSnapshot(await get(flags.from, '/.peerscope/snapshot'), `${flags.from}/.peerscope/snapshot`);
  const report = impactReportOfSnapshot(snapshot, targetFor(flags, files, snapshot.servers));
  if (!report)
    throw new InputError(
      flags.snapshot ?? flags.from,
      'this snapshot was taken by a Peerscope that did not record client usage yet: no report can be made from it',
    );
  return report;
}

/**
 * The clients of the whole cluster, from the servers' audit logs and the batches their audit webhook
 * posts for --for, against the current servers: a snapshot's (--snapshot), read now (--kubeconfig), or
 * the running port's (--from).
 */
async function reportOfAuditLogs(flags: ReportFlags): Promise<ImpactReport> {
  const files = releaseFilesOf(flags);
  const warn = (line: string) => process.stderr.write(`peerscope: ${line}\n`);
  if (flags.auditWebhookListen !== undefined && flags.for === undefined)
    throw new InputError('--audit-webhook-listen', 'give --for DURATION: how long to collect the batches before reporting');
  if (flags.auditWebhookListen === undefined && flags.for !== undefined) throw new InputError('--for', 'goes with --audit-webhook-listen');
  const judgement: AuditJudgement =
    flags.snapshot || flags.kubeconfig || flags.context
      ? await judgementOf({ ...flags, server: [] }, warn)
      : judgeBySnapshot(parseSnapshot(await get(flags.from, '/.peerscope/snapshot'), `${flags.from}/.peerscope/snapshot`), flags.from);
  checkAuditInputs(flags.auditLog, false);
  const inputs = await matchAuditInputs(flags.auditLog, judgement.description.servers);
  const tokens = resolveWebhookTokens(flags.auditWebhookToken, judgement.description.servers);
  for (const name of tokens.unknown)
    throw new InputError(
      `--audit-webhook-token ${name}`,
      `no server is named "${name}" (servers: ${new ServerNames(judgement.description.servers).known()})`,
    );
  const webhookOptions = await auditWebhookOf({ ...flags, auditWebhookToken: tokens.specs }, () => judgement.description.servers);
  const target = (servers: Parameters<typeof targetFor>[2]) => targetFor(flags, files, servers);
  const usage = new AuditUsage(judgement);
  const cancel = new AbortController();
  // Ctrl-C ends the collection early and reports what came.
  process.once('SIGINT', () => cancel.abort());
  let webhook: AuditWebhook | undefined;
  let posted = 0;
  if (webhookOptions) {
    // Each request once, judged as it arrives, as serve counts posted batches.
    const dedupe = new RequestDedupe();
    webhook = await startAuditWebhook({
      ...webhookOptions,
      onRecord: (record) => {
        if (dedupe.verdict(record) !== 'count') return;
        posted++;
        usage.add(record, classifyAuditRecord(record, judgement.table));
      },
      onProblem: webhookProblemLog((line) => process.stderr.write(line)),
    });
    warn(`receiving audit events at ${webhook.url} for ${flags.for! / 1000} s (Ctrl-C reports early)`);
  }
  const until = Date.now() + (flags.for ?? 0);
  try {
    if (inputs.length > 0) {
      const progress = progressLine();
      const { audit } = await impactOfAuditLogs(
        inputs,
        { judgement, rotated: flags.rotated, signal: cancel.signal, ...(progress ? { onProgress: progress.update } : {}) },
        target,
        usage,
      ).finally(() => progress?.stop());
      // What was read goes to standard error: the report itself stays one document.
      warn(
        `read ${audit.inputs.length} audit log(s): ${audit.totals.requests} request(s), ${audit.problemCount} problem(s)${audit.problems[0] ? ` (first: ${audit.problems[0]})` : ''}`,
      );
    }
    if (webhook) {
      await sleep(Math.max(0, until - Date.now()), undefined, { signal: cancel.signal }).catch(() => undefined);
      warn(`received ${posted} request(s) from the audit webhook (${webhook.counters.summary()})`);
    }
  } finally {
    await webhook?.close();
  }
  return usage.report(target);
}

/**
 * The exit status a CI gate reads: nothing seen is not a pass (unless --allow-empty), and a finding of
 * a --fail-on kind fails; each said in one line on standard error.
 */
function gateStatus(report: ImpactReport, flags: Pick<ReportFlags, 'allowEmpty' | 'failOn'>): number {
  if (nothingSeen(report) && !flags.allowEmpty) {
    process.stderr.write(
      `peerscope: no request was seen, so nothing was judged (exit ${EXIT.nothingSeen}); give --allow-empty to accept an empty report\n`,
    );
    return EXIT.nothingSeen;
  }
  const failing = report.findings.filter((f) => flags.failOn?.includes(f.impact));
  if (failing.length === 0) return EXIT.ok;
  const kinds = [...new Set(failing.map((f) => f.impact))].join(', ');
  process.stderr.write(`peerscope: --fail-on: ${failing.length} finding(s) of ${kinds} (exit ${EXIT.findings})\n`);
  return EXIT.findings;
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

function releaseFilesOf(flags: ReportFlags): string[] | undefined {
  const files = flags.to ? flags.releaseFile.get(flags.to) : undefined;
  if (flags.releaseFile.size > 0 && !files)
    throw new InputError('--to', `give --to with one of the --release-file names (${[...flags.releaseFile.keys()].join(', ')})`);
  return files;
}

/** --to from --release-file or the catalog; by default the next catalog release above the current servers'. */
function targetFor(
  flags: ReportFlags,
  files: string[] | undefined,
  servers: readonly { readonly name: string; readonly displayName?: string; readonly gitVersion?: string | null }[],
): ImpactTarget {
  const running = servers.map((s) => ({ name: s.displayName ?? s.name, ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}) }));
  return files && flags.to
    ? targetOf(loadReleaseFiles(flags.to, files))
    : catalogTarget(flags.to ?? defaultTargetName(servers.map((s) => s.gitVersion ?? undefined)), running);
}

/** The body of a 200 answer of the running port, or an error that says what happened. */
async function get(from: string, path: string): Promise<string> {
  const url = `${from.replace(/\/$/, '')}${path}`;
  const agent = new Agent();
  try {
    const res = await request(url, { dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      let message = `HTTP ${res.statusCode}`;
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {
        // not a Status: the HTTP status says enough
      }
      throw new InputError(url, message);
    }
    return text;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(from, unreachablePort(err));
  } finally {
    await agent.close();
  }
}

function collectReleaseFile(value: string, previous: Map<string, string[]> = new Map()): Map<string, string[]> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InvalidArgumentError(`"${value}" is not NAME=FILE`);
  const name = value.slice(0, eq);
  const next = new Map(previous);
  next.set(name, [...(next.get(name) ?? []), value.slice(eq + 1)]);
  return next;
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InputError) fail(err.message);
    throw err;
  }
}
