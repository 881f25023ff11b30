// `peerscope recording list|open|report|export`: the recordings serve (--record) and demo write, read
// back offline, and exported as Parquet. A file that is not a whole recording is refused naming the
// file and the fault (exit 2).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { listRecordings } from '../../engine/recording/list.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { EXPORT_FILES, exportRecording } from '../../engine/recording/export.js';
import { recordingListLines, recordingSummary, reportMarkdown } from '../../engine/recording/report-text.js';
import { fail } from './usage.js';

interface WindowFlags {
  from?: number;
  to?: number;
}

interface ReportFlags extends WindowFlags {
  output: 'markdown' | 'json';
}

export function registerRecordingCommands(program: Command): void {
  const recording = program.command('recording').description('read the recordings that serve and demo write');
  recording
    .command('list')
    .description('the recordings in a folder, with their spans (default: the current folder)')
    .argument('[dir]', 'folder to look in', '.')
    .action((dir: string) => {
      const rows = run(() => listRecordings(dir));
      if (rows.length === 0) console.log(`no recordings in ${dir}`);
      else for (const line of recordingListLines(rows)) console.log(line);
    });
  recording
    .command('open')
    .description('summary of a recording: its span, the servers and their releases over time, requests by outcome, false 404s by client')
    .argument('<file>', 'the recording')
    .action((file: string) => {
      process.stdout.write(run(() => withReader(file, (reader) => recordingSummary(buildRecordingReport(reader)))));
    });
  recording
    .command('report')
    .description(
      "the rollout report of a recording: each server's release and state over time, incidents, false 404s per client × server × GVR per minute, what the port rerouted",
    )
    .argument('<file>', 'the recording')
    .addOption(
      new Option('--from <time>', 'start of the window: an ISO 8601 time (e.g. 2026-11-27T14:30:00Z) or epoch ms').argParser(
        parseTime('--from'),
      ),
    )
    .addOption(new Option('--to <time>', 'end of the window (exclusive), as --from').argParser(parseTime('--to')))
    .addOption(new Option('-o, --output <format>', 'markdown or json').choices(['markdown', 'json']).default('markdown'))
    .action((file: string, flags: ReportFlags) => {
      const report = run(() => withReader(file, (reader) => buildRecordingReport(reader, windowOf(flags))));
      process.stdout.write(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : `${reportMarkdown(report)}\n`);
    });
  recording
    .command('export')
    .description(
      `the recording's events, per-minute rollups and timeline changes as Parquet: ${Object.values(EXPORT_FILES).join(', ')} in --out`,
    )
    .argument('<file>', 'the recording')
    .requiredOption('--out <dir>', 'the folder to write into (made if missing; files already there are not written over)')
    .addOption(new Option('--from <time>', 'start of the window: an ISO 8601 time or epoch ms').argParser(parseTime('--from')))
    .addOption(new Option('--to <time>', 'end of the window (exclusive), as --from').argParser(parseTime('--to')))
    .action((file: string, flags: WindowFlags & { out: string }) => {
      const window = windowOf(flags);
      const progress = process.stderr.isTTY
        ? (n: number) => process.stderr.write(`\r${n.toLocaleString('en-US')} events written`)
        : undefined;
      const result = run(() =>
        withReader(file, (reader) => exportRecording(reader, flags.out, { ...window, ...(progress ? { onProgress: progress } : {}) })),
      );
      if (progress) process.stderr.write('\n');
      console.log(
        `wrote ${result.dir}: ${EXPORT_FILES.events} ${result.events} events, ${EXPORT_FILES.minutes} ${result.minutes} rows, ${EXPORT_FILES.changes} ${result.changes} changes`,
      );
    });
}

/** The window of --from and --to; --to not after --from is a usage error. */
function windowOf(flags: WindowFlags): { from?: number; to?: number } {
  if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
  return { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
}

/** `--record FILE` names a new file in a folder that exists: checked before anything starts. */
export function checkNewRecording(file: string, fail: (message: string) => never): void {
  if (existsSync(file)) fail(`--record ${file}: already exists: a recording is written to a new file (remove it or name another)`);
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) fail(`--record ${file}: no such folder ${dir}`);
}

function withReader<T>(file: string, read: (reader: RecordingReader) => T): T {
  const reader = RecordingReader.open(file);
  try {
    return read(reader);
  } finally {
    reader.close();
  }
}

/** Runs `read`; a refused file or folder ends the command with its message and exit code 2. */
function run<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** A commander parser of a time flag: ISO 8601 or epoch ms. */
export function parseTime(flag: string): (value: string) => number {
  return (value) => {
    const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isFinite(at)) throw new InvalidArgumentError(`${flag} "${value}" is not an ISO 8601 time or epoch milliseconds`);
    return at;
  };
}
