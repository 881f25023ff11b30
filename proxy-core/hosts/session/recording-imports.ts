// A recording from elsewhere brought into the recordings folder: copied (a file the desktop app's
// dialog picked) or written from uploaded bytes, first under a hidden staging name, checked whole as a
// recording opens, and only then given a name of its own beside the others (never over one). A file
// that is not a recording is removed and refused naming the file the operator chose and the fault.
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { RecordingFileError } from '../../engine/recording/check.js';
import { RECORDING_SUFFIX } from '../../engine/recording/list.js';
import { RecordingReader } from '../../engine/recording/reader.js';

/** The file and its write-ahead log and index. */
export const COMPANIONS = ['', '-wal', '-shm'];

export interface RecordingImporter {
  /** Copies `source` (and its write-ahead log) into the folder; returns its name there. */
  importFile(source: string, shownAs?: string): string;
  /** Writes uploaded bytes into the folder; returns its name there. */
  importBytes(body: AsyncIterable<Uint8Array>, shownAs: string): Promise<string>;
}

export function recordingImporter(folder: string): RecordingImporter {
  const staged = () => join(folder, `.import-${randomBytes(6).toString('hex')}`);
  const discard = (file: string) => {
    for (const suffix of COMPANIONS) rmSync(`${file}${suffix}`, { force: true });
  };
  /** A name of its own from the name it came with: "rollout.recording.sqlite", else "rollout-2.recording.sqlite". */
  const freeName = (shownAs: string): string => {
    const stem =
      basename(shownAs)
        .replace(/\.recording\.sqlite$|\.sqlite$/, '')
        .replace(/[^A-Za-z0-9._-]+/g, '_')
        .replace(/^[._]+/, '') || 'imported';
    for (let n = 1; ; n++) {
      const name = `${stem}${n === 1 ? '' : `-${n}`}${RECORDING_SUFFIX}`;
      if (!existsSync(join(folder, name))) return name;
    }
  };
  const admit = (file: string, shownAs: string): string => {
    try {
      RecordingReader.open(file).close();
    } catch (err) {
      discard(file);
      if (err instanceof RecordingFileError) throw new RecordingFileError(shownAs, err.detail);
      throw err;
    }
    const name = freeName(shownAs);
    for (const suffix of COMPANIONS) if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, join(folder, `${name}${suffix}`));
    return name;
  };
  return {
    importFile(source, shownAs = source) {
      const file = staged();
      try {
        copyFileSync(source, file);
        if (existsSync(`${source}-wal`)) copyFileSync(`${source}-wal`, `${file}-wal`);
      } catch (err) {
        discard(file);
        throw new RecordingFileError(
          shownAs,
          `cannot be copied into ${folder}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      return admit(file, shownAs);
    },
    async importBytes(body, shownAs) {
      const file = staged();
      const out = createWriteStream(file);
      try {
        await pipeline(body, out);
      } catch (err) {
        // The stream may still be opening its file: removed before it is created, it would be left behind.
        if (!out.closed) await new Promise<void>((closed) => out.once('close', () => closed()));
        discard(file);
        throw err;
      }
      return admit(file, shownAs);
    },
  };
}
