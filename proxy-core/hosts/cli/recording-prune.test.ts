// `peerscope recording prune` and `recording list` without a folder, on the built CLI (dist/cli.mjs,
// `npm run build -- --cli`): the cap applied to real files with real sizes and last-write times, a dry
// run first; the app's folder taken from XDG_DATA_HOME.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAge, parseSize } from './recording-prune.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const root = mkdtempSync(join(tmpdir(), 'recording-prune-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function peerscope(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/peerscope', ...argv],
      { cwd: repoRoot, encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function file(dir: string, name: string, kib: number, daysAgo: number): void {
  const at = new Date(Date.now() - daysAgo * 86_400_000);
  writeFileSync(join(dir, name), Buffer.alloc(kib * 1024, 7));
  utimesSync(join(dir, name), at, at);
}

describe('peerscope recording prune', () => {
  it('reads sizes and ages as people write them', () => {
    expect([parseSize('5GiB'), parseSize('500M'), parseSize('1.5 KiB'), parseSize('2048')]).toEqual([
      5 * 1024 ** 3,
      500 * 1024 ** 2,
      1536,
      2048,
    ]);
    expect([parseAge('14d'), parseAge('36h'), parseAge('90m')]).toEqual([14, 1.5, 90 / 1440]);
    expect(() => parseSize('-1G')).toThrow('"-1G" is not a size');
    expect(() => parseAge('2w')).toThrow('"2w" is not a duration');
  });

  it('says what it would remove on a dry run, then removes it; the XDG folder by default', async () => {
    const folder = join(root, 'xdg', 'peerscope', 'recordings');
    const env = { XDG_DATA_HOME: join(root, 'xdg') };
    expect(await peerscope(['recording', 'list'], env)).toMatchObject({ code: 0, stdout: `no recordings in ${folder}\n` });
    mkdirSync(folder, { recursive: true });
    file(folder, 'old.recording.sqlite', 100, 30);
    file(folder, 'big.recording.sqlite', 300, 3);
    file(folder, 'new.recording.sqlite', 200, 1);
    const dry = await peerscope(['recording', 'prune', '--max-size', '400KiB', '--dry-run'], env);
    expect(dry.stdout.split('\n')).toEqual([
      'would remove old.recording.sqlite (100 KiB): last written 30 days ago, over the 14-day cap',
      'would remove big.recording.sqlite (300 KiB): the folder held 500 KiB, over the 400 KiB cap (oldest removed first)',
      `${folder}: 2 recordings would be removed; cap 14 days, 400 KiB`,
      '',
    ]);
    expect(existsSync(join(folder, 'old.recording.sqlite'))).toBe(true);
    const done = await peerscope(['recording', 'prune', '--max-size', '500KiB', '--max-age', '60d'], env);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toContain(`${folder}: 1 recording removed; cap 60 days, 500 KiB`);
    expect(['old', 'big', 'new'].map((n) => existsSync(join(folder, `${n}.recording.sqlite`)))).toEqual([false, true, true]);
  });

  it('names the settings file and field of a broken cap, and uses the defaults', async () => {
    const dir = mkdtempSync(join(root, 'broken-'));
    writeFileSync(join(dir, 'retention.json'), '{"maxAgeDays": 14, "maxBytes": "5G"}');
    file(dir, 'a.recording.sqlite', 10, 1);
    const run = await peerscope(['recording', 'prune', dir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^peerscope: ${join(dir, 'retention.json')}: maxBytes: .*; the defaults are used\\n$`));
    expect(run.stdout).toBe(`${dir}: 0 recordings removed; cap 14 days, 5.0 GiB\n`);
  });
});
