// `peerscope recording list|open|report|export|prune`: the recordings serve (--record) and demo write, read back
// offline. A file that is not a whole recording is refused naming the file and the fault (exit 2).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { listRecordings } from '../../engine/recording/list.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { recordingListLines, recordingSummary } from '../../engine/recording/report-text.js';
import { xdgRecordingsFolder } from '../session/recordings-folder.js';
import { registerRecordingExportCommand } from './recording-export.js';
import { registerPruneCommand } from './recording-prune.js';
import { registerRecordingReportCommand } from './recording-report.js';
import { fail } from './usage.js';

export function registerRecordingCommands(program: Command): void {
  const recording = program.command('recording').description('read the recordings that serve and demo write');
  recording
    .command('list')
    .description("the recordings in a folder, with their spans (default: the app's recordings folder)")
    .argument('[dir]', 'folder to look in', xdgRecordingsFolder())
    .action((dir: string) => {
      // The app's folder is made by its first session: none yet is no recording yet.
      const rows = dir === xdgRecordingsFolder() && !existsSync(dir) ? [] : run(() => listRecordings(dir));
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
  registerRecordingReportCommand(recording, (file, read) => run(() => withReader(file, read)));
  registerRecordingExportCommand(recording, (file, read) => run(() => withReader(file, read)));
  registerPruneCommand(recording);
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
