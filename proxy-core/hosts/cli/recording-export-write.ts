// What `peerscope recording export FILE --out DIR` runs (recording-export.ts registers it and its flags).
import { EXPORT_FILES, exportRecording } from '../../engine/recording/export.js';
import { readRecording } from './recording-read.js';
import { fail } from './usage.js';

export interface ExportFlags {
  from?: number;
  to?: number;
  out: string;
}

export function writeRecordingExport(file: string, flags: ExportFlags): void {
  if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) fail('--to must be after --from');
  const window = { ...(flags.from !== undefined ? { from: flags.from } : {}), ...(flags.to !== undefined ? { to: flags.to } : {}) };
  const progress = process.stderr.isTTY ? (n: number) => process.stderr.write(`\r${n.toLocaleString('en-US')} events written`) : undefined;
  const result = readRecording(file, (reader) =>
    exportRecording(reader, flags.out, { ...window, ...(progress ? { onProgress: progress } : {}) }),
  );
  if (progress) process.stderr.write('\n');
  console.log(
    `wrote ${result.dir}: ${EXPORT_FILES.events} ${result.events} events, ${EXPORT_FILES.minutes} ${result.minutes} rows, ${EXPORT_FILES.changes} ${result.changes} changes`,
  );
}
