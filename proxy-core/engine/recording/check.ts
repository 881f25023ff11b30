// Before a recording is opened: is this file one, whole, of a format this Peerscope reads? Read from
// SQLite's own 100-byte header (https://sqlite.org/fileformat2.html#the_database_header), so a file
// that is not SQLite, another program's database, or a cut copy is refused naming the file and the
// fault, before SQLite is asked to read it.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { errnoWords } from '../util/errno.js';
import { InputError } from '../util/input-error.js';
import { APPLICATION_ID, FORMAT_VERSION } from './schema.js';

const MAGIC = 'SQLite format 3\0';
const HEADER_BYTES = 100;

export class RecordingFileError extends InputError {
  override readonly name = 'RecordingFileError';
}

/** Throws a RecordingFileError naming `file` and what is wrong with it; returns when it reads as a recording. */
export function checkRecordingFile(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw new RecordingFileError(file, `cannot read: ${errnoWords(err)}`);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (read < MAGIC.length || header.toString('latin1', 0, MAGIC.length) !== MAGIC)
    throw new RecordingFileError(file, 'not a Peerscope recording: not an SQLite database (its first bytes are not "SQLite format 3")');
  if (read < HEADER_BYTES) throw new RecordingFileError(file, `truncated: ${size} bytes, shorter than the 100-byte SQLite header`);
  const applicationId = header.readUInt32BE(68);
  if (applicationId !== APPLICATION_ID)
    throw new RecordingFileError(
      file,
      `not a Peerscope recording: an SQLite database of another application (application_id 0x${applicationId.toString(16).padStart(8, '0')}, a recording has 0x${APPLICATION_ID.toString(16)})`,
    );
  const version = header.readUInt32BE(60);
  if (version > FORMAT_VERSION)
    throw new RecordingFileError(
      file,
      `recording format ${version} is newer than this Peerscope reads (${FORMAT_VERSION}): upgrade Peerscope`,
    );
  if (version < 1) throw new RecordingFileError(file, `recording format ${version} is not one Peerscope writes`);
  // A page size of 1 means 65,536. The page count is only valid once written by a recent SQLite
  // (version-valid-for equals the change counter), which ours is.
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  const valid = header.readUInt32BE(92) === header.readUInt32BE(24);
  // With a write-ahead log beside it (a session killed before its last checkpoint), the main file
  // may be mid-checkpoint: SQLite's recovery from the log decides.
  const wal = `${file}-wal`;
  const walHolds = existsSync(wal) && statSync(wal).size > 0;
  if (valid && !walHolds && size < pages * pageSize)
    throw new RecordingFileError(
      file,
      `truncated: ${size} bytes, where its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes)`,
    );
}
