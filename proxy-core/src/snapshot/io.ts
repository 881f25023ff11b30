// Reading and writing snapshot files. Reading validates everything before anything is returned:
// a file is loaded whole or not at all, and every error names the file and the field (JSON pointer)
// or the line and column at fault.
import { readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import {
  SNAPSHOT_API_GROUP,
  SNAPSHOT_API_VERSION,
  SNAPSHOT_KIND,
  routingSnapshotSchema,
  type RoutingSnapshot,
} from '../../contract/snapshot.js';
import { InputError, fromZodError, parseJsonText } from '../util/input-error.js';

/** Far above a real snapshot (5 servers × 1,000 GVRs × 10,000 events is under 10 MB). */
export const MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024;

/** Older apiVersions this Peerscope can read, each with its migration to the current one. */
const MIGRATIONS: Record<string, (doc: Record<string, unknown>) => Record<string, unknown>> = {
  // peerscope.dev/v1 is the first format; a v2 will add `'peerscope.dev/v1': migrateV1` here.
};

export function parseSnapshot(text: string, file: string): RoutingSnapshot {
  if (text.length > MAX_SNAPSHOT_BYTES) {
    throw new InputError(file, `is ${(text.length / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB a snapshot can be; it is not a Peerscope snapshot or it was damaged`);
  }
  const raw = parseJsonText(text, file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InputError(file, 'is not a JSON object', { pointer: '' });
  let doc = raw as Record<string, unknown>;
  if (doc.kind !== SNAPSHOT_KIND) {
    throw new InputError(file, `kind is ${JSON.stringify(doc.kind)}, not ${SNAPSHOT_KIND}: not a Peerscope routing snapshot`, { pointer: '/kind' });
  }
  const apiVersion = doc.apiVersion;
  if (typeof apiVersion !== 'string' || !apiVersion.startsWith(`${SNAPSHOT_API_GROUP}/`)) {
    throw new InputError(file, `apiVersion ${JSON.stringify(apiVersion)} is not ${SNAPSHOT_API_VERSION}`, { pointer: '/apiVersion' });
  }
  if (apiVersion !== SNAPSHOT_API_VERSION) {
    const migrate = MIGRATIONS[apiVersion];
    if (!migrate) {
      throw new InputError(file, `apiVersion ${apiVersion} was made by a newer Peerscope; this one reads ${[SNAPSHOT_API_VERSION, ...Object.keys(MIGRATIONS)].join(', ')}`, { pointer: '/apiVersion' });
    }
    doc = migrate(doc);
  }
  const parsed = routingSnapshotSchema.safeParse(doc);
  if (!parsed.success) throw fromZodError(file, parsed.error);
  return parsed.data;
}

export function readSnapshotFile(path: string): RoutingSnapshot {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new InputError(path, `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (size > MAX_SNAPSHOT_BYTES) {
    throw new InputError(path, `is ${(size / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB a snapshot can be; it is not a Peerscope snapshot or it was damaged`);
  }
  return parseSnapshot(readFileSync(path, 'utf8'), path);
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
