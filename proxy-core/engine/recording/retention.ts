// The recordings folder's retention cap: recordings older than the age cap are removed, then the
// oldest until the folder's recordings fit the size cap. A recording's age is its last write (mtime),
// its size the file with its write-ahead log. Files that must stay (the one being written, the one
// open) are never removed, even when they alone exceed the cap.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDING_SUFFIX } from './schema.js';

export interface RetentionCap {
  /** Recordings whose last write is older than this are removed. */
  readonly maxAgeDays: number;
  /** The folder's recordings together stay at or under this many bytes. */
  readonly maxBytes: number;
}

/** Two weeks covers a rollout and the review after it; 5 GiB is ~130 million events at the 40-byte target. */
export const DEFAULT_RETENTION: RetentionCap = { maxAgeDays: 14, maxBytes: 5 * 1024 ** 3 };

export interface StoredRecording {
  readonly name: string;
  readonly file: string;
  /** The file and its write-ahead log and index. */
  readonly bytes: number;
  /** Epoch ms of the last write. */
  readonly modifiedAt: number;
}

export interface RemovedRecording {
  readonly name: string;
  readonly bytes: number;
  /** Epoch ms it was removed. */
  readonly at: number;
  readonly reason: string;
}

const DAY_MS = 86_400_000;
const COMPANIONS = ['', '-wal', '-shm'];

/** The recordings of `dir` by name (*.recording.sqlite), oldest write first; none when the folder does not exist. */
export function storedRecordings(dir: string): StoredRecording[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: StoredRecording[] = [];
  for (const name of names) {
    if (!name.endsWith(RECORDING_SUFFIX)) continue;
    const file = join(dir, name);
    let bytes = 0;
    let modifiedAt = 0;
    for (const suffix of COMPANIONS) {
      try {
        const stat = statSync(`${file}${suffix}`);
        if (suffix === '' && !stat.isFile()) break;
        bytes += stat.size;
        modifiedAt = Math.max(modifiedAt, stat.mtimeMs);
      } catch {
        // No write-ahead log beside it: a closed recording.
      }
    }
    if (modifiedAt > 0) out.push({ name, file, bytes, modifiedAt });
  }
  return out.sort((a, b) => a.modifiedAt - b.modifiedAt || a.name.localeCompare(b.name));
}

/** A size as people read it: "1.5 GiB", "320 MiB", "12 KiB", "800 B". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * What the cap removes from `dir` now: the recordings it holds beyond the cap, each with why. With
 * `dryRun` nothing is removed. `keep`: files never removed (absolute paths).
 */
export function applyRetention(
  dir: string,
  cap: RetentionCap,
  options: { readonly keep?: readonly string[]; readonly now?: number; readonly dryRun?: boolean } = {},
): RemovedRecording[] {
  const now = options.now ?? Date.now();
  const keep = new Set(options.keep ?? []);
  const stored = storedRecordings(dir);
  const removed: RemovedRecording[] = [];
  const remove = (r: StoredRecording, reason: string) => {
    if (!options.dryRun) for (const suffix of COMPANIONS) rmSync(`${r.file}${suffix}`, { force: true });
    removed.push({ name: r.name, bytes: r.bytes, at: now, reason });
  };
  const left: StoredRecording[] = [];
  for (const r of stored) {
    const ageDays = (now - r.modifiedAt) / DAY_MS;
    if (!keep.has(r.file) && ageDays > cap.maxAgeDays)
      remove(r, `last written ${Math.floor(ageDays)} days ago, over the ${cap.maxAgeDays}-day cap`);
    else left.push(r);
  }
  let total = left.reduce((sum, r) => sum + r.bytes, 0);
  // Oldest first, until what is left fits.
  for (const r of left) {
    if (total <= cap.maxBytes) break;
    if (keep.has(r.file)) continue;
    remove(r, `the folder held ${formatBytes(total)}, over the ${formatBytes(cap.maxBytes)} cap (oldest removed first)`);
    total -= r.bytes;
  }
  return removed;
}
