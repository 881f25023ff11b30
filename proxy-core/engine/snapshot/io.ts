// Reading and writing snapshot files. Reading validates everything before anything is returned:
// a file is loaded whole or not at all, and every error names the file and the field (JSON pointer)
// or the line and column at fault.
import { readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import {
  MAX_SNAPSHOT_BYTES,
  SNAPSHOT_API_GROUP,
  SNAPSHOT_API_VERSION,
  SNAPSHOT_KIND,
  routingSnapshotSchema,
  type RoutingSnapshot,
  type SnapshotReadError,
  type SnapshotReadResult,
} from '../../contract/snapshot.js';
import { InputError, fromZodError, parseJsonText } from '../util/input-error.js';
import { errnoWords } from '../util/errno.js';

export { MAX_SNAPSHOT_BYTES };

type Reason = SnapshotReadError['reason'];

/** An InputError that also says which kind of problem it is (for a UI to word it). */
export class SnapshotFileError extends InputError {
  constructor(
    file: string,
    detail: string,
    where: InputError['where'],
    readonly reason: Reason,
  ) {
    super(file, detail, where);
  }
}

function tooLarge(file: string, bytes: number): SnapshotFileError {
  return new SnapshotFileError(
    file,
    `is ${(bytes / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB a snapshot can be; it is not a Peerscope snapshot or it was damaged`,
    {},
    'too-large',
  );
}

/** Older apiVersions this Peerscope can read, each with its migration to the current one. */
const MIGRATIONS: Record<string, (doc: Record<string, unknown>) => Record<string, unknown>> = {
  // peerscope.dev/v1 is the first format; a v2 will add `'peerscope.dev/v1': migrateV1` here.
};

/**
 * Parses and validates a snapshot file's text (migrating an older apiVersion); throws an InputError
 * naming the file and the field or position at fault. `sizeBytes`, when the caller knows the file's
 * size, refuses an oversized file without looking at its text.
 */
export function parseSnapshot(text: string, file: string, sizeBytes?: number): RoutingSnapshot {
  const size = Math.max(sizeBytes ?? 0, text.length);
  if (size > MAX_SNAPSHOT_BYTES) throw tooLarge(file, size);
  let raw: unknown;
  try {
    raw = parseJsonText(text, file);
  } catch (err) {
    if (err instanceof InputError) throw new SnapshotFileError(err.file, err.detail, err.where, 'syntax');
    throw err;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new SnapshotFileError(file, 'is not a JSON object', { pointer: '' }, 'not-a-snapshot');
  let doc = raw as Record<string, unknown>;
  if (doc.kind !== SNAPSHOT_KIND) {
    throw new SnapshotFileError(
      file,
      `kind is ${JSON.stringify(doc.kind)}, not ${SNAPSHOT_KIND}: not a Peerscope routing snapshot`,
      { pointer: '/kind' },
      'not-a-snapshot',
    );
  }
  const apiVersion = doc.apiVersion;
  if (typeof apiVersion !== 'string' || !apiVersion.startsWith(`${SNAPSHOT_API_GROUP}/`)) {
    throw new SnapshotFileError(
      file,
      `apiVersion ${JSON.stringify(apiVersion)} is not ${SNAPSHOT_API_VERSION}`,
      { pointer: '/apiVersion' },
      'unknown-version',
    );
  }
  if (apiVersion !== SNAPSHOT_API_VERSION) {
    const migrate = MIGRATIONS[apiVersion];
    if (!migrate) {
      throw new SnapshotFileError(
        file,
        `apiVersion ${apiVersion} was made by a newer Peerscope; this one reads ${[SNAPSHOT_API_VERSION, ...Object.keys(MIGRATIONS)].join(', ')}`,
        { pointer: '/apiVersion' },
        'newer-version',
      );
    }
    doc = migrate(doc);
  }
  const parsed = routingSnapshotSchema.safeParse(doc);
  if (!parsed.success) {
    const e = fromZodError(file, parsed.error);
    throw new SnapshotFileError(e.file, e.detail, e.where, 'invalid');
  }
  return parsed.data;
}

/** parseSnapshot as data (what CoreClient.readSnapshot answers): the snapshot, or the named error. */
export function readSnapshotText(text: string, file: string, sizeBytes?: number): SnapshotReadResult {
  try {
    return { ok: true, snapshot: parseSnapshot(text, file, sizeBytes) };
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return { ok: false, error: snapshotReadError(err) };
  }
}

export function snapshotReadError(err: InputError): SnapshotReadError {
  return {
    file: err.file,
    message: err.message,
    detail: err.detail,
    reason: err instanceof SnapshotFileError ? err.reason : 'invalid',
    ...(err.where.pointer !== undefined ? { pointer: err.where.pointer } : {}),
    ...(err.where.line !== undefined ? { line: err.where.line, column: err.where.column ?? 1 } : {}),
  };
}

export function readSnapshotFile(path: string): RoutingSnapshot {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new InputError(path, `cannot read: ${errnoWords(err)}`);
  }
  if (size > MAX_SNAPSHOT_BYTES) throw tooLarge(path, size);
  return parseSnapshot(readFileSync(path, 'utf8'), path, size);
}

export function serializeSnapshot(snapshot: RoutingSnapshot): string {
  return JSON.stringify(snapshot, null, 1) + '\n';
}

/** Writes through a temporary file and a rename, so a crash never leaves half a snapshot. */
export function writeSnapshotFile(path: string, snapshot: RoutingSnapshot): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, serializeSnapshot(snapshot), { mode: 0o644 });
  renameSync(tmp, path);
}
