// What `recording list` and `recording open` run, and how every recording command reads a file:
// a file that is not a whole recording ends the command naming the file and the fault (exit 2).
import { existsSync } from 'node:fs';
import { listRecordings } from '../../engine/recording/list.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { buildRecordingReport } from '../../engine/recording/report.js';
import { recordingListLines, recordingSummary } from '../../engine/recording/report-text.js';
import { xdgRecordingsFolder } from '../session/recordings-folder.js';
import { fail } from './usage.js';

export function listRecordingsIn(dir: string): void {
  // The app's folder is made by its first session: none yet is no recording yet.
  const rows = dir === xdgRecordingsFolder() && !existsSync(dir) ? [] : run(() => listRecordings(dir));
  if (rows.length === 0) console.log(`no recordings in ${dir}`);
  else for (const line of recordingListLines(rows)) console.log(line);
}

export function openRecording(file: string): void {
  process.stdout.write(readRecording(file, (reader) => recordingSummary(buildRecordingReport(reader))));
}

/** Opens `file`, runs `read` on it and closes it; a refused file ends the command with its message (exit 2). */
export function readRecording<T>(file: string, read: (reader: RecordingReader) => T): T {
  return run(() => {
    const reader = RecordingReader.open(file);
    try {
      return read(reader);
    } finally {
      reader.close();
    }
  });
}

/** Runs `read`; a refused file or folder ends the command with its message and exit code 2. */
function run<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    return fail((err as Error).message);
  }
}
