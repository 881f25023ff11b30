// The retention cap on real files with real sizes and last-write times: age first, then the oldest
// until the folder fits, never a file that must stay; a dry run removes nothing.
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyRetention, DEFAULT_RETENTION, formatBytes, storedRecordings } from './retention.js';

const root = mkdtempSync(join(tmpdir(), 'retention-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0);

/** A file of `kib` KiB last written `daysAgo` days before NOW (and a write-ahead log when asked). */
function recording(dir: string, name: string, kib: number, daysAgo: number, walKib = 0): string {
  const file = join(dir, name);
  const at = new Date(NOW - daysAgo * DAY);
  writeFileSync(file, Buffer.alloc(kib * 1024, 1));
  utimesSync(file, at, at);
  if (walKib) {
    writeFileSync(`${file}-wal`, Buffer.alloc(walKib * 1024, 2));
    utimesSync(`${file}-wal`, at, at);
  }
  return file;
}

describe('applyRetention', () => {
  it('defaults to 14 days and 5 GiB', () => {
    expect(DEFAULT_RETENTION).toEqual({ maxAgeDays: 14, maxBytes: 5 * 1024 ** 3 });
    expect([formatBytes(800), formatBytes(12 * 1024), formatBytes(5 * 1024 ** 3), formatBytes(1.5 * 1024 ** 2)]).toEqual([
      '800 B',
      '12 KiB',
      '5.0 GiB',
      '1.5 MiB',
    ]);
  });

  it('removes what is older than the age cap, then the oldest until the rest fits, with the reason for each', () => {
    const dir = mkdtempSync(join(root, 'cap-'));
    recording(dir, 'a-old.recording.sqlite', 10, 20);
    recording(dir, 'b.recording.sqlite', 40, 5, 10);
    recording(dir, 'c.recording.sqlite', 30, 3);
    recording(dir, 'd.recording.sqlite', 20, 1);
    writeFileSync(join(dir, 'retention.json'), '{}');
    expect(storedRecordings(dir).map((r) => [r.name, r.bytes])).toEqual([
      ['a-old.recording.sqlite', 10 * 1024],
      ['b.recording.sqlite', 50 * 1024],
      ['c.recording.sqlite', 30 * 1024],
      ['d.recording.sqlite', 20 * 1024],
    ]);
    const cap = { maxAgeDays: 14, maxBytes: 60 * 1024 };
    const dry = applyRetention(dir, cap, { now: NOW, dryRun: true });
    expect(dry.map((r) => r.name)).toEqual(['a-old.recording.sqlite', 'b.recording.sqlite']);
    expect(storedRecordings(dir)).toHaveLength(4);

    const removed = applyRetention(dir, cap, { now: NOW });
    expect(removed).toEqual([
      { name: 'a-old.recording.sqlite', bytes: 10 * 1024, at: NOW, reason: 'last written 20 days ago, over the 14-day cap' },
      {
        name: 'b.recording.sqlite',
        bytes: 50 * 1024,
        at: NOW,
        reason: 'the folder held 100 KiB, over the 60 KiB cap (oldest removed first)',
      },
    ]);
    expect(existsSync(join(dir, 'b.recording.sqlite-wal'))).toBe(false);
    expect(storedRecordings(dir).map((r) => r.name)).toEqual(['c.recording.sqlite', 'd.recording.sqlite']);
    expect(existsSync(join(dir, 'retention.json'))).toBe(true);
  });

  it('never removes a file that must stay (being written, shown), even over both caps', () => {
    const dir = mkdtempSync(join(root, 'keep-'));
    const writing = recording(dir, 'writing.recording.sqlite', 100, 30);
    recording(dir, 'other.recording.sqlite', 10, 1);
    const removed = applyRetention(dir, { maxAgeDays: 14, maxBytes: 50 * 1024 }, { now: NOW, keep: [writing] });
    expect(removed.map((r) => r.name)).toEqual(['other.recording.sqlite']);
    expect(existsSync(writing)).toBe(true);
  });

  it('answers nothing for a folder that does not exist yet', () => {
    expect(applyRetention(join(root, 'missing'), DEFAULT_RETENTION)).toEqual([]);
  });
});
