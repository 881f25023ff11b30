// `peerscope recording report FILE`: the rollout report (post-mortem) of a recording over a window, as
// Markdown for a ticket, one self-contained HTML file with its charts, or JSON of the shape
// docs/recording-report.schema.json describes; to standard output or a file (--out). Its flags are here;
// what it runs, recording-report-write.ts, is loaded when it runs (the HTML report's charts are d3's).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { TO_RELEASE_FLAG } from '../../engine/recording/command-names.js';
import { outputOption } from './options.js';
import type { ReportFlags } from './recording-report-write.js';

export function registerRecordingReportCommand(recording: Command): void {
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
    .action(async (file: string, flags: ReportFlags) => (await import('./recording-report-write.js')).writeRecordingReport(file, flags));
}

export function parseTime(flag: string): (value: string) => number {
  return (value) => {
    const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isFinite(at)) throw new InvalidArgumentError(`${flag} "${value}" is not an ISO 8601 time or epoch milliseconds`);
    return at;
  };
}
