// Reads audit logs into a report: each line parsed, each request counted once, judged and tallied.
// Bad input never stops a read: a line that is not an audit event, a file that cannot be opened, a .gz
// cut short — each is counted and named (file and line), and every other line and input is still read.
// What each line counts for is read-count.ts's; this file plans the inputs, reads them and tells the progress.
import { statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { AuditOutcome, AuditReport } from '../../contract/audit.js';
import type { AuditRecord } from './event.js';
import type { AuditInput } from './inputs.js';
import type { AuditJudgement } from './judge.js';
import { AuditReadCounts, type InputState, type ReadProblem } from './read-count.js';
import { isGzip, readLines, STDIN } from './read-lines.js';
import { rotatedFiles } from './rotated.js';
import { peekOwnReleases, StandIns } from './stand-in.js';
import { ReleaseTimeline, TimelineJudge, type JudgedBy } from './timeline.js';

export { MAX_PROBLEMS_LISTED, type ReadProblem } from './read-count.js';

export interface AuditProgress {
  /** Bytes read from disk so far (compressed bytes for .gz). */
  readonly bytesRead: number;
  /** Size of every file to read; null when an input has no end to measure (standard input, --follow). */
  readonly bytesTotal: number | null;
  readonly lines: number;
  readonly requests: number;
  /** What the files held when the read began (also when following); null with standard input. */
  readonly bytesAtStart: number | null;
  /** Every file's content as it was when the read began has been read (a follow then waits for more). */
  readonly caughtUp: boolean;
}

export interface ReadAuditOptions {
  readonly judgement: AuditJudgement;
  /** Also read each file's rotated predecessors, oldest first (rotated.ts). */
  readonly rotated?: boolean;
  readonly follow?: boolean;
  /** Ends the read (Ctrl-C); the report then says it is not complete. */
  readonly signal?: AbortSignal;
  readonly pollMs?: number;
  readonly stdin?: Readable;
  /** Called as lines are read; the caller decides how often to show it. */
  readonly onProgress?: (p: AuditProgress) => void;
  /** Called with each request as it is counted, judged (a follow prints the false 404s as they come). */
  readonly onRequest?: (record: AuditRecord, outcome: AuditOutcome | null, judgedBy: JudgedBy) => void;
  /** Called with each problem as it is counted: a bad line (file:line) or a file that could not be read to its end. */
  readonly onProblem?: (p: ReadProblem) => void;
  /** A server's release today (default: the judgement's gitVersion of it); a running core gives its probes'. */
  readonly todayRelease?: (server: string) => string | undefined;
  /** What is known already of the servers' releases over time (a running core: its probes'); the logs add theirs. */
  readonly timeline?: ReleaseTimeline;
}

export async function readAuditLogs(inputs: readonly AuditInput[], options: ReadAuditOptions): Promise<AuditReport> {
  const judgement = options.judgement;
  let bytesRead = 0;
  const todayRelease =
    options.todayRelease ?? ((server: string) => judgement.description.servers.find((s) => s.name === server)?.gitVersion ?? undefined);
  const timeline = new TimelineJudge(options.timeline ?? new ReleaseTimeline(), todayRelease);
  const standIns = new StandIns(timeline.timeline, todayRelease);
  const counts = new AuditReadCounts(judgement, timeline, standIns, { onRequest: options.onRequest, onProblem: options.onProblem });
  const first = judgement.table;
  // A server whose discovery is unknown: its own log tells its release before the others' logs are judged.
  if (first && !options.follow) await peekOwnReleases(inputs, (server) => !first.known(server), timeline.timeline);

  const plan = inputs.map((input) => ({
    input,
    files: input.file !== STDIN && options.rotated ? [...rotatedFiles(input.file), input.file] : [input.file],
  }));
  const bytesAtStart = plan.some((p) => p.input.file === STDIN)
    ? null
    : plan.reduce((sum, p) => sum + p.files.reduce((s, f) => s + sizeOf(f), 0), 0);
  const bytesTotal = options.follow ? null : bytesAtStart;
  let done = false;
  const progress = () =>
    options.onProgress?.({
      bytesRead,
      bytesTotal,
      lines: counts.lines,
      requests: counts.requests,
      bytesAtStart,
      caughtUp: done || (bytesAtStart !== null && bytesRead >= bytesAtStart),
    });

  const readOne = async ({ input, files }: (typeof plan)[number]): Promise<InputState> => {
    const state: InputState = { server: input.server, file: input.file, files, lines: 0, events: 0, problems: 0 };
    for (const file of files) {
      // Only the live file grows; its rotated predecessors are complete.
      const follow = options.follow === true && file === input.file;
      let lastLine = 0;
      try {
        for await (const line of readLines(file, {
          follow,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
          ...(options.stdin ? { stdin: options.stdin } : {}),
          onBytes: (n) => {
            bytesRead += n;
            // Per chunk (64 KiB): a follow's caught-up moment shows without waiting for more lines.
            if (options.follow) progress();
          },
        })) {
          lastLine = line.line;
          if ((counts.countLine(state) & 0x3ff) === 0) progress();
          counts.take(state, input.server, line);
        }
      } catch (err) {
        const why = describeReadError(err, file);
        counts.problem(state, lastLine > 0 ? `${file}:${lastLine + 1}` : file, 'unreadable', why);
        state.error = state.error ? `${state.error}; ${file}: ${why}` : `${file}: ${why}`;
      }
      if (options.signal?.aborted) break;
    }
    return state;
  };

  // One after the other, so problems and rows come in the order given; followed files all at once.
  let states: InputState[];
  if (options.follow) states = await Promise.all(plan.map(readOne));
  else {
    states = [];
    for (const p of plan) states.push(await readOne(p));
  }
  done = !options.signal?.aborted;
  progress();
  return counts.report(states, !options.signal?.aborted);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function describeReadError(err: unknown, file: string): string {
  const e = err as NodeJS.ErrnoException;
  if (isGzip(file) && (e.code === 'Z_BUF_ERROR' || e.code === 'Z_DATA_ERROR'))
    return `the .gz file is cut short or damaged (${e.message}); the lines before were read`;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EACCES') return 'permission denied (audit logs are usually readable by root only)';
  if (e.code === 'EISDIR') return 'a directory, not a file';
  return e.message ?? String(err);
}
