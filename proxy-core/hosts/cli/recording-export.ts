// `peerscope recording export FILE --out DIR [--from --to]`: a recording's events, per-minute rollups
// and timeline as Parquet files, for the engines a team already runs (engine/recording/export.ts). Its
// flags are here; what it runs, recording-export-write.ts, is loaded when it runs (the Parquet writer).
import { Option, type Command } from 'commander';
import { EXPORT_FILES } from '../../engine/recording/command-names.js';
import { parseTime } from './recording-report.js';
import type { ExportFlags } from './recording-export-write.js';

export function registerRecordingExportCommand(recording: Command): void {
  recording
    .command('export')
    .description(
      `the recording's events, per-minute rollups and timeline changes as Parquet: ${Object.values(EXPORT_FILES).join(', ')} in --out`,
    )
    .argument('<file>', 'the recording')
    .requiredOption('--out <dir>', 'the folder to write into (made if missing; files already there are not written over)')
    .addOption(new Option('--from <time>', 'start of the window: an ISO 8601 time or epoch ms').argParser(parseTime('--from')))
    .addOption(new Option('--to <time>', 'end of the window (exclusive), as --from').argParser(parseTime('--to')))
    .action(async (file: string, flags: ExportFlags) => (await import('./recording-export-write.js')).writeRecordingExport(file, flags));
}
