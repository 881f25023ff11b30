// What `peerscope report` runs (report.ts registers it and its flags): the impact report of a running
// port, a snapshot, or the apiservers' audit events, and the exit status a CI gate reads.
import type { AuditInputSpec } from '../../engine/audit/index.js';
import type { ImpactKind } from '../../contract/impact.js';
import type { AuditWebhookFlags } from './audit-webhook-flags.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { impactReportSchema, type ImpactReport } from '../../contract/impact.js';
import type { RoutingSnapshot } from '../../contract/snapshot.js';
import { formatImpactMarkdown, formatImpactText, nothingSeen } from '../../engine/impact/format.js';
import { impactReportOfSnapshot } from '../../engine/impact/of-core.js';
import { AuditUsage, impactOfAuditLogs } from '../../engine/impact/of-audit.js';
import { classifyAuditRecord } from '../../engine/audit/classify.js';
import { RequestDedupe } from '../../engine/audit/dedupe.js';
import { startAuditWebhook, type AuditWebhook } from '../../engine/audit/webhook/receiver.js';
import { progressLine } from './audit-progress.js';
import { auditWebhookOf, webhookProblemLog } from './audit-webhook-flags.js';
import type { ImpactTarget } from '../../engine/impact/report.js';
import { ServerNames } from '../../engine/cluster/server-names.js';
import { resolveWebhookTokens } from '../../engine/audit/webhook/senders.js';
import { catalogTarget, defaultTargetName, targetOf } from '../../engine/impact/targets.js';
import { checkAuditInputs, judgeBySnapshot, matchAuditInputs, type AuditJudgement } from '../../engine/audit/index.js';
import { loadReleaseFiles } from '../../engine/releases/index.js';
import { parseSnapshot, readSnapshotFile } from '../../engine/snapshot/index.js';
import { Agent, request } from '../../engine/upstream/undici.js';
import { InputError } from '../../engine/util/input-error.js';
import { judgementOf } from './audit-judge.js';
import { EXIT, fail } from './usage.js';
import { unreachablePort } from './options.js';

export interface ReportFlags extends AuditWebhookFlags {
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

/** The report asked for on standard output; the exit status a CI gate reads (gateStatus). */
export async function runReport(flags: ReportFlags): Promise<void> {
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

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InputError) fail(err.message);
    throw err;
  }
}
