// What `peerscope audit` runs (audit.ts registers it and its flags): the audit logs read and judged.
import {
  checkAuditInputs,
  formatAuditText,
  formatFinding,
  matchAuditInputs,
  readAuditLogs,
  type AuditInputSpec,
  type AuditJudgement,
} from '../../engine/audit/index.js';
import { judgementOf, type JudgeFlags } from './audit-judge.js';
import { progressLine } from './audit-progress.js';
import { fail } from './usage.js';

export interface AuditFlags extends JudgeFlags {
  auditLog: AuditInputSpec[];
  rotated: boolean;
  follow: boolean;
  output: 'text' | 'json';
  top: number;
}

/** Exit code of a read cancelled before its end (128 + SIGINT), after the partial report is printed. */
const EXIT_CANCELLED = 130;

export async function runAudit(flags: AuditFlags): Promise<void> {
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
}
