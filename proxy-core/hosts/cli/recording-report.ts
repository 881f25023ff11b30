// `peerscope recording report FILE`: the rollout report (post-mortem) of a recording over a window, as
// Markdown for a ticket, one self-contained HTML file with its charts, or JSON of the shape
// docs/recording-report.schema.json describes; to standard output or a file (--out).
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { RecordingReader } from '../../engine/recording/reader.js';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { TO_RELEASE_FLAG } from '../../engine/recording/report-breaking.js';
import { reportHtml } from '../../engine/recording/report-html.js';
import { reportMarkdown } from '../../engine/recording/report-text.js';
import { outputOption } from './options.js';
import { fail } from './usage.js';

interface ReportFlags {
  from?: number;
  to?: number;
  toRelease?: string;
  output: 'markdown' | 'html' | 'json';
  out: string;
}

/** Reads a recording (a refused file ends the command naming it): what `recording.ts` gives each of its commands. */
export type ReadRecording = <T>(file: string, read: (reader: RecordingReader) => T) => T;

export function registerRecordingReportCommand(recording: Command, readRecording: ReadRecording): void {
  recording
    .command('report')
    .description(
      "the rollout report of a recording: each server's release and state over time with the rollout steps, incidents, false 404s per client × server × GVR per minute, what the port rerouted, the clients that break at the target release",
    )
    .argument('<file>', 'the recording')
    .addOption(
      new Option('--from <time>', 'start of the window: an ISO 8601 time (e.g. 2026-11-27T14:30:00Z) or epoch ms').argParser(
        parseTime('--from'),
      ),
    )
    .addOption(new Option('--to <time>', 'end of the window (exclusive), as --from').argParser(parseTime('--to')))
    .option(
      `${TO_RELEASE_FLAG} <release>`,
      'the target release the clients are judged against, from the catalog (`peerscope catalog list`; default: the newest release recorded)',
    )
    .addOption(outputOption(['markdown', 'html', 'json']))
    .option('--out <file>', 'where to write the report (- for standard output)', '-')
    .action((file: string, flags: ReportFlags) => {
      if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
      const window = { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
      const options = flags.toRelease !== undefined ? { toRelease: flags.toRelease } : {};
      const report = readRecording(file, (reader) => buildRecordingReport(reader, window, options));
      const text =
        flags.output === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : flags.output === 'html'
            ? reportHtml(report)
            : `${reportMarkdown(report)}\n`;
      if (flags.out === '-') {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(flags.out, text);
      } catch (err) {
        fail(`--out ${flags.out}: ${(err as Error).message}`);
      }
      console.error(`wrote ${flags.out}: the ${flags.output} report of ${formatSpan(report.from, report.to)}`);
    });
}

function formatSpan(from: number, to: number): string {
  return `${new Date(from).toISOString()} → ${new Date(to).toISOString()}`;
}

export function parseTime(flag: string): (value: string) => number {
  return (value) => {
    const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isFinite(at)) throw new InvalidArgumentError(`${flag} "${value}" is not an ISO 8601 time or epoch milliseconds`);
    return at;
  };
}
