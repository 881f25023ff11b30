// `peerscope recording export FILE --out DIR [--from --to]`: a recording's events, per-minute rollups
// and timeline as Parquet files, for the engines a team already runs (engine/recording/export.ts).
import { Option, type Command } from 'commander';
import { EXPORT_FILES, exportRecording } from '../../engine/recording/export.js';
import { parseTime, type ReadRecording } from './recording-report.js';
import { fail } from './usage.js';

interface ExportFlags {
  from?: number;
  to?: number;
  out: string;
}

/** `read` opens the file and runs its callback, a refused file ending the command (recording.ts). */
export function registerRecordingExportCommand(recording: Command, read: ReadRecording): void {
  recording
    .command('export')
    .description(
      `the recording's events, per-minute rollups and timeline changes as Parquet: ${Object.values(EXPORT_FILES).join(', ')} in --out`,
    )
    .argument('<file>', 'the recording')
    .requiredOption('--out <dir>', 'the folder to write into (made if missing; files already there are not written over)')
    .addOption(new Option('--from <time>', 'start of the window: an ISO 8601 time or epoch ms').argParser(parseTime('--from')))
    .addOption(new Option('--to <time>', 'end of the window (exclusive), as --from').argParser(parseTime('--to')))
    .action((file: string, flags: ExportFlags) => {
      if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
      const window = { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
      const progress = process.stderr.isTTY
        ? (n: number) => process.stderr.write(`\r${n.toLocaleString('en-US')} events written`)
        : undefined;
      const result = read(file, (reader) =>
        exportRecording(reader, flags.out, { ...window, ...(progress ? { onProgress: progress } : {}) }),
      );
      if (progress) process.stderr.write('\n');
      console.log(
        `wrote ${result.dir}: ${EXPORT_FILES.events} ${result.events} events, ${EXPORT_FILES.minutes} ${result.minutes} rows, ${EXPORT_FILES.changes} ${result.changes} changes`,
      );
    });
}
