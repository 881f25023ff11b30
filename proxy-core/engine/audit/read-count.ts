// What a read of audit logs counts, line by line, and the report it makes: the stages seen, each
// request once (dedupe.ts), judged against the route table of its time (timeline.ts, stand-in.ts)
// and tallied; the problems counted, the first MAX_PROBLEMS_LISTED named.
import { AUDIT_REPORT_KIND, type AuditOutcome, type AuditReport } from '../../contract/audit.js';
import type { GVR } from '../discovery/types.js';
import { judgeAuditRecord } from './classify.js';
import { RequestDedupe } from './dedupe.js';
import { auditStages, type AuditRecord } from './event.js';
import type { AuditJudgement } from './judge.js';
import { parseAuditLine, type LineProblem } from './parse-line.js';
import type { AuditLine } from './read-lines.js';
import type { StandIns } from './stand-in.js';
import { AuditTally } from './tally.js';
import type { JudgedBy, TimelineJudge } from './timeline.js';

/** Problems named one by one in the report; the rest are counted. */
export const MAX_PROBLEMS_LISTED = 100;

export type InputState = AuditReport['inputs'][number];

/** A problem of a read: where (file:line, or the file) and what kind; never a piece of the input. */
export interface ReadProblem {
  readonly server: string;
  readonly file: string;
  readonly where: string;
  readonly reason: LineProblem | 'unreadable';
  readonly detail: string;
}

export interface CountHooks {
  readonly onRequest?: ((record: AuditRecord, outcome: AuditOutcome | null, judgedBy: JudgedBy) => void) | undefined;
  readonly onProblem?: ((p: ReadProblem) => void) | undefined;
}

export class AuditReadCounts {
  private readonly dedupe = new RequestDedupe();
  private readonly tally = new AuditTally();
  private readonly stages: Record<string, number> = Object.fromEntries(auditStages.map((s) => [s, 0]));
  private readonly problems: string[] = [];
  private problemCount = 0;
  private duplicates = 0;
  lines = 0;
  requests = 0;

  constructor(
    private readonly judgement: AuditJudgement,
    private readonly timeline: TimelineJudge,
    private readonly standIns: StandIns,
    private readonly hooks: CountHooks,
  ) {}

  /** Counts a line read from an input; the lines read so far, of every input. */
  countLine(state: InputState): number {
    state.lines++;
    return ++this.lines;
  }

  /** What a line says: nothing (blank), a problem, or an event, counted once per request and judged. */
  take(state: InputState, server: string, line: AuditLine): void {
    const parsed = parseAuditLine(server, line.text);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'problem') {
      this.problem(state, `${line.file}:${line.line}`, parsed.reason, parsed.why);
      return;
    }
    state.events++;
    const record = parsed.record;
    this.stages[record.stage] = (this.stages[record.stage] ?? 0) + 1;
    const verdict = this.dedupe.verdict(record);
    if (verdict === 'duplicate') this.duplicates++;
    if (verdict !== 'count') return;
    this.requests++;
    this.timeline.timeline.noteRecord(record);
    const { table, judgedBy } = this.timeline.tableFor(record, this.standIns.apply(this.judgement.table, record.receivedAt));
    const judged = judgeAuditRecord(record, table);
    this.tally.add(record, judged.outcome, (gvr: GVR) => table?.serversFor(gvr) ?? [], judgedBy, judged.reason);
    this.hooks.onRequest?.(record, judged.outcome, judgedBy);
  }

  problem(state: InputState, where: string, reason: ReadProblem['reason'], why: string): void {
    state.problems++;
    this.problemCount++;
    if (this.problems.length < MAX_PROBLEMS_LISTED) this.problems.push(`${where}: ${why}`);
    this.hooks.onProblem?.({ server: state.server, file: state.file, where, reason, detail: why });
  }

  report(inputs: InputState[], complete: boolean): AuditReport {
    return {
      apiVersion: 'peerscope.dev/v1',
      kind: AUDIT_REPORT_KIND,
      judgedAgainst: this.judgement.description,
      complete,
      inputs,
      stages: this.stages,
      duplicates: this.duplicates,
      judgedBy: { ...this.timeline.counts },
      ...this.tally.report(),
      standIns: this.standIns.report(),
      ...(this.judgement.table ? {} : { false404s: null }),
      problems: this.problems,
      problemCount: this.problemCount,
    };
  }
}
