// The lines of one audit log: a plain file, a .gz file, standard input ("-"), or a file followed as it
// grows (--follow, like `tail -F`: a file rotated away is read to its end and the new one from its
// start). Streams all the way, so a file of any size costs one chunk and one line of memory.
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { addAbortSignal, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';

export const STDIN = '-';

export interface AuditLine {
  /** The file the line is in ("-" for standard input). */
  readonly file: string;
  /** 1-based; counts from 1 again in a file that took the followed one's name. */
  readonly line: number;
  readonly text: string;
}

export interface ReadLinesOptions {
  /** Keep reading as the file grows, until the signal aborts. Plain files only. */
  readonly follow?: boolean;
  /** Ends the read: a plain or .gz read stops at the next chunk, a follow at once. */
  readonly signal?: AbortSignal;
  /** How often a followed file is looked at once its end is reached (default 250 ms). */
  readonly pollMs?: number;
  /** Bytes read from disk (compressed bytes for .gz), for a progress line. */
  readonly onBytes?: (bytes: number) => void;
  /** Standard input, replaceable in tests. */
  readonly stdin?: Readable;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** Every line of `file`. Rejects (after yielding what came before) when the file cannot be read or a .gz is cut short. */
export async function* readLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<AuditLine> {
  if (file === STDIN) {
    const input = options.stdin ?? process.stdin;
    // Standard input may never end (a pipe from a tail): the signal must end the wait for its next line.
    if (options.signal) addAbortSignal(options.signal, input);
    yield* linesOf(file, input, options.signal);
    return;
  }
  if (options.follow && !isGzip(file)) {
    yield* followLines(file, options);
    return;
  }
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES, ...(options.signal ? { signal: options.signal } : {}) });
  if (options.onBytes) {
    const onBytes = options.onBytes;
    raw.on('data', (chunk) => onBytes(chunk.length));
  }
  // A reader that stops early (a peek at the first lines) leaves no file open.
  try {
    if (!isGzip(file)) {
      yield* linesOf(file, raw, options.signal);
      return;
    }
    const gunzip = createGunzip();
    // pipe() does not pass the source's errors on (a missing file, a read error): the line reader must hear them.
    // A cancelled read ends it quietly: an AbortError passed on would be an error nobody listens for any more.
    raw.on('error', (err) => gunzip.destroy(options.signal?.aborted ? undefined : err));
    raw.pipe(gunzip);
    try {
      yield* linesOf(file, gunzip, options.signal);
    } finally {
      gunzip.destroy();
    }
  } finally {
    raw.destroy();
  }
}

export function isGzip(file: string): boolean {
  return file.endsWith('.gz');
}

async function* linesOf(file: string, input: NodeJS.ReadableStream, signal: AbortSignal | undefined): AsyncGenerator<AuditLine> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      yield { file, line, text };
      if (signal?.aborted) return;
    }
  } catch (err) {
    // A cancelled read is not an error of the file.
    if (signal?.aborted && (err as Error).name === 'AbortError') return;
    throw err;
  } finally {
    lines.close();
  }
}

/** The lines of a followed file and of each file that takes its name after a rotation. */
async function* followLines(file: string, options: ReadLinesOptions): AsyncGenerator<AuditLine> {
  let handle: FileHandle | undefined = await open(file, 'r');
  while (handle) {
    const tail: FileTail = new FileTail(handle, file, options);
    yield* linesOf(file, Readable.from(tail.chunks()), options.signal);
    handle = tail.next;
  }
}

/**
 * The bytes of one open file as it grows, up to its last newline: a line still being written is held
 * back until it ends. When another file takes the name (rotation), the rest of this one is given and
 * `next` is the new file; when it shrinks (copytruncate), reading starts again at 0.
 */
class FileTail {
  next: FileHandle | undefined;

  constructor(
    private readonly handle: FileHandle,
    private readonly file: string,
    private readonly options: ReadLinesOptions,
  ) {}

  async *chunks(): AsyncGenerator<Buffer> {
    const { signal, onBytes } = this.options;
    const pollMs = this.options.pollMs ?? 250;
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let position = 0;
    let pending: Buffer = Buffer.alloc(0);
    let rotated = false;
    const identity = (await this.handle.stat()).ino;
    try {
      while (!signal?.aborted) {
        const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          onBytes?.(bytesRead);
          const data = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
          const end = data.lastIndexOf(NEWLINE) + 1;
          pending = data.subarray(end);
          if (end > 0) yield data.subarray(0, end);
          continue;
        }
        if (rotated) {
          // Its writer moved on to the new file, so its last line is complete.
          if (pending.length > 0) yield pending;
          this.next = await open(this.file, 'r');
          return;
        }
        const now = await stat(this.file).catch(() => undefined);
        if (now && now.ino !== identity) {
          // Rotated: read what was written here between the last read and the rename, then move on.
          rotated = true;
          continue;
        }
        if (now && now.size < position) {
          position = 0;
          pending = Buffer.alloc(0);
          continue;
        }
        await sleep(pollMs, undefined, signal ? { signal } : {}).catch(() => undefined);
      }
    } finally {
      await this.handle.close();
    }
  }
}
