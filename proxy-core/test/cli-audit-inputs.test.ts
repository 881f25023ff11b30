// An audit input that cannot be read is an error, as kubectl's bad -f is: `audit`, `report` and
// `serve` name the flag, the file and the cause, exit 2 and print no report. A bare FILE that cannot
// be read is named as unreadable, not blamed on its name.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeRegExp } from '../engine/util/regexp.js';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditLog, PODS, PODS_PATH } from './audit-events.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function peerscope(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('audit inputs that cannot be read', () => {
  let sim: SimCluster;
  let dir: string;
  let kubeconfig: string;
  let missing: string;
  let folder: string;
  let fifo: string;
  let good: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-audit-inputs-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev')], names: ['a'] });
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
    missing = join(dir, 'missing.log');
    folder = join(dir, 'logs');
    mkdirSync(folder);
    fifo = join(dir, 'pipe.log');
    execFileSync('mkfifo', [fifo]);
    good = join(dir, 'a.log');
    writeFileSync(good, auditLog([{ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }]));
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // One line in the CLI's one error style: what is wrong, then where help is (hosts/cli/usage.ts).
  const refused = (run: Run, line: string) => {
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^peerscope: ${escapeRegExp(line)}(; see 'peerscope [a-z]+ --help')?\\n$`));
  };

  it('audit: a missing file, a directory and a named pipe without --follow, named with the flag and the cause', async () => {
    refused(
      await peerscope(['audit', '--audit-log', `a=${good}`, '--audit-log', `b=${missing}`]),
      `--audit-log b=${missing}: no such file`,
    );
    refused(
      await peerscope(['audit', '--audit-log', `a=${folder}`]),
      `--audit-log a=${folder}: a directory, not a file (give the log file inside it)`,
    );
    refused(
      await peerscope(['audit', '--audit-log', `a=${fifo}`]),
      `--audit-log a=${fifo}: a named pipe: a one-time read would wait for its writer to end; give --follow to read it as it comes`,
    );
  });

  it('audit: a bare FILE that cannot be read is named as unreadable, not blamed on its name', async () => {
    refused(await peerscope(['audit', '--audit-log', missing, '--kubeconfig', kubeconfig]), `--audit-log ${missing}: no such file`);
  });

  it('audit: a file the user may not read', async () => {
    if (process.getuid?.() === 0) {
      console.log('skipped: running as root, who may read any file, so no permission can be denied here');
      return;
    }
    const locked = join(dir, 'locked.log');
    writeFileSync(locked, '');
    chmodSync(locked, 0o000);
    const run = await peerscope(['audit', '--audit-log', `a=${locked}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--audit-log a=${locked}: permission denied`);
  });

  it('report and serve refuse the same way', async () => {
    refused(
      await peerscope(['report', '--audit-log', `a=${folder}`, '--kubeconfig', kubeconfig]),
      `--audit-log a=${folder}: a directory, not a file (give the log file inside it)`,
    );
    refused(
      await peerscope(['serve', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--audit-log', `a=${missing}`]),
      `--audit-log a=${missing}: no such file`,
    );
  });
});
