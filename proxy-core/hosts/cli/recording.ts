// `peerscope recording list|open|report`: the recordings serve (--record) and demo write, read back
// offline. A file that is not a whole recording is refused naming the file and the fault (exit 2).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { listRecordings } from '../../engine/recording/list.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { recordingListLines, recordingSummary, reportMarkdown } from '../../engine/recording/report-text.js';
import { fail } from './usage.js';

interface ReportFlags {
  from?: number;
  to?: number;
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
      if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
      const window = { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
      const report = run(() => withReader(file, (reader) => buildRecordingReport(reader, window)));
      process.stdout.write(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : `${reportMarkdown(report)}\n`);
    });
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
