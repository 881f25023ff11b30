// A long audit read shows its progress and can be cancelled. On a terminal (a real pseudo-terminal from
// util-linux `script`), `peerscope audit` and `report --audit-log` draw a progress line on standard
// error and clear it; redirected, they draw none. In the core, the read reports its figures as it goes
// and stops when its AbortSignal aborts, saying the report is not complete.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { auditReportSchema } from '../contract/audit.js';
import { NO_JUDGEMENT, readAuditLogs, type AuditProgress } from '../engine/audit/index.js';
import { auditLog, PODS, PODS_PATH } from './audit-events.js';

const SCRIPT = '/usr/bin/script';
const REQUESTS = 20_000;
const NO_SCRIPT = !existsSync(SCRIPT);
if (NO_SCRIPT)
  console.warn(`cli-audit-progress: the terminal test is skipped: ${SCRIPT} (util-linux) is missing to give it a pseudo-terminal`);

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('a long audit read: progress and cancel', () => {
  let dir: string;
  let log: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-progress-'));
    log = join(dir, 'audit.log');
    writeFileSync(
      log,
      auditLog(
        Array.from({ length: REQUESTS }, (_, i) => ({
          verb: 'get',
          path: `${PODS_PATH}/web-${i}`,
          ref: { ...PODS, name: `web-${i}` },
          code: 200,
          auditID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        })),
      ),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(NO_SCRIPT)(
    'draws a progress line on a terminal and clears it; none when standard error is redirected',
    async () => {
      const out = join(dir, 'report.json');
      const size = statSync(log).size / 1024 / 1024;
      // script gives the command a pseudo-terminal and copies what it writes there to its own standard output.
      const tty = await run(SCRIPT, [
        '-qfec',
        `${process.execPath} bin/peerscope audit --audit-log apiserver-a=${log} --output json > ${out}`,
        '/dev/null',
      ]);
      expect(tty.code, tty.stdout).toBe(0);
      const drawn = [
        ...tty.stdout.matchAll(
          /reading: ([\d.]+) MiB of ([\d.]+) MiB \((\d+)%\), (\d+) lines, (\d+) requests \(Ctrl-C stops and prints them\)/g,
        ),
      ];
      expect(drawn.length, tty.stdout).toBeGreaterThan(0);
      for (const m of drawn) {
        expect(Number(m[2])).toBeCloseTo(size, 1);
        expect(Number(m[1])).toBeLessThanOrEqual(Number(m[2]));
      }
      // Cleared at the end: the last thing on the terminal is the erase, not a stale figure.
      expect(tty.stdout.trimEnd().endsWith('\r\x1b[K') || tty.stdout.trimEnd().endsWith('\x1b[K')).toBe(true);
      expect(auditReportSchema.parse(JSON.parse(readFileSync(out, 'utf8'))).totals.requests).toBe(REQUESTS);

      const redirected = await run(process.execPath, ['bin/peerscope', 'audit', '--audit-log', `apiserver-a=${log}`, '--output', 'json']);
      expect(redirected.code).toBe(0);
      expect(redirected.stderr).toBe('');
    },
    120_000,
  );

  it('reports its figures as it reads, and stops when aborted, saying the report is not complete', async () => {
    const size = statSync(log).size;
    const seen: AuditProgress[] = [];
    const whole = await readAuditLogs([{ server: 'apiserver-a', file: log }], { judgement: NO_JUDGEMENT, onProgress: (p) => seen.push(p) });
    expect(whole.complete).toBe(true);
    expect(whole.totals.requests).toBe(REQUESTS);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((p) => p.bytesTotal === size && p.bytesAtStart === size)).toBe(true);
    expect(seen.map((p) => p.lines)).toEqual([...seen.map((p) => p.lines)].sort((a, b) => a - b));
    expect(seen.at(-1)).toMatchObject({ bytesRead: size, lines: 2 * REQUESTS, requests: REQUESTS, caughtUp: true });

    // Cancelled at its first figure: what was read until then is reported, not complete.
    const abort = new AbortController();
    const cut = await readAuditLogs([{ server: 'apiserver-a', file: log }], {
      judgement: NO_JUDGEMENT,
      signal: abort.signal,
      onProgress: () => abort.abort(),
    });
    expect(cut.complete).toBe(false);
    expect(cut.totals.requests).toBeGreaterThan(0);
    expect(cut.totals.requests).toBeLessThan(REQUESTS);
    expect(cut.problemCount).toBe(0);
  });
});
