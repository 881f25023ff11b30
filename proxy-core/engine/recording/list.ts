// The recordings of a folder (`peerscope recording list`): each file that is one, with its span; a
// file named as a recording (*.recording.sqlite) that cannot be read is listed with the reason.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errnoWords } from '../util/errno.js';
import { InputError } from '../util/input-error.js';
import { RecordingReader } from './reader.js';
import { RECORDING_SUFFIX } from './schema.js';

export { RECORDING_SUFFIX };

export interface ListedRecording {
  readonly file: string;
  readonly startedAt?: number;
  readonly endedAt?: number;
  readonly events?: number;
  /** The servers recorded, in the order first seen. */
  readonly servers?: readonly string[];
  /** Every release the servers were seen at, in the order first seen. */
  readonly releases?: readonly string[];
  /** Why a file named as a recording was not read. */
  readonly refused?: string;
}

export function listRecordings(dir: string): ListedRecording[] {
  const out: ListedRecording[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    throw new InputError(dir, `cannot list the folder: ${errnoWords(err)}`);
  }
  for (const name of names) {
    const file = join(dir, name);
    // The write-ahead log and its index beside a recording are part of it, not recordings.
    if (name.endsWith('-wal') || name.endsWith('-shm') || !statSync(file).isFile()) continue;
    try {
      const reader = RecordingReader.open(file);
      try {
        const { startedAt, endedAt, events } = reader.info();
        const releases = [...new Set(reader.changes({}, ['release']).map((c) => c.value))];
        out.push({ file, startedAt, endedAt, events, servers: reader.servers(), releases });
      } finally {
        reader.close();
      }
    } catch (err) {
      if (name.endsWith(RECORDING_SUFFIX)) out.push({ file, refused: (err as Error).message.replace(`${file}: `, '') });
    }
  }
  return out.sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));
}
