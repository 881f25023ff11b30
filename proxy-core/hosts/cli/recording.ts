// `peerscope recording list|open|report|export|prune`: the recordings serve (--record) and demo write, read back
// offline. A file that is not a whole recording is refused naming the file and the fault (exit 2). What each
// command runs is loaded when it runs (recording-read.ts, recording-report-write.ts, …), so no other command loads
// the reader, the report's charts or the Parquet writer.
import type { Command } from 'commander';
import { xdgRecordingsFolder } from '../session/recordings-folder.js';
import { registerRecordingExportCommand } from './recording-export.js';
import { registerPruneCommand } from './recording-prune.js';
import { registerRecordingReportCommand } from './recording-report.js';

export function registerRecordingCommands(program: Command): void {
  const recording = program.command('recording').description('read the recordings that serve and demo write');
  recording
    .command('list')
    .description("the recordings in a folder, with their spans (default: the app's recordings folder)")
    .argument('[dir]', 'folder to look in', xdgRecordingsFolder())
    .action(async (dir: string) => (await import('./recording-read.js')).listRecordingsIn(dir));
  recording
    .command('open')
    .description('summary of a recording: its span, the servers and their releases over time, requests by outcome, false 404s by client')
    .argument('<file>', 'the recording')
    .action(async (file: string) => (await import('./recording-read.js')).openRecording(file));
  registerRecordingReportCommand(recording);
  registerRecordingExportCommand(recording);
  registerPruneCommand(recording);
}
