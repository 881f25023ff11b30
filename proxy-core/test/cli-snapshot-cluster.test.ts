// `peerscope snapshot save` of a running `serve --audit-log`: the built CLI's snapshot file carries the
// cluster source (what the simulated servers answered, straight to them, from their audit logs), and
// `snapshot show` says so; the file reads back whole.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { readSnapshotFile } from '../engine/snapshot/index.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../sim/index.js';
import { PCR_PATH } from './audit-events.js';
import { callServer } from './sim-client.js';

function peerscope(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('peerscope snapshot save of a serve following audit logs', () => {
  let dir: string;
  let sim: SimCluster;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-snapshot-cluster-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'], auditLogDir: dir });
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the cluster source into the file, and show summarises it', async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
        '--ca',
        join(dir, 'ca.crt'),
        '--token-file',
        join(dir, 'token'),
        '--listen',
        '127.0.0.1:0',
        ...sim.servers.flatMap((s) => ['--audit-log', `${s.name}=${simAuditLogFile(dir, s.name)}`]),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const from = `http://127.0.0.1:${Number(/:(\d+)$/.exec(line)?.[1])}`;
      // Straight to the older server, past the port: two false 404s only its audit log knows.
      const a = sim.servers[0]!.info().url;
      for (let i = 0; i < 2; i++) expect((await callServer(sim, a, PCR_PATH)).status).toBe(404);
      const series =
        'peerscope_cluster_false_404_total{server="a",server_id="a",group="certificates.k8s.io",version="v1",resource="podcertificaterequests"} 2';
      await expect
        .poll(async () => (await fetch(`${from}/.peerscope/metrics`).then((r) => r.text())).includes(series), { timeout: 20_000 })
        .toBe(true);

      const file = join(dir, 'snapshot.json');
      const saved = await peerscope(['snapshot', 'save', '--port-url', from, '--out', file]);
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stdout).toMatch(/^wrote .*snapshot\.json: 2 servers, \d+ GVRs \(\d+ skewed\), \d+ events, [1-9]\d* cluster events\n$/);
      const snapshot = readSnapshotFile(file);
      expect(snapshot.cluster?.sources).toEqual(['audit-log']);
      // No webhook was received: no count of it (not 0).
      expect(snapshot.cluster?.bySource).toEqual({ 'audit-log': expect.any(Number) });
      expect(snapshot.cluster?.events.filter((e) => e.outcome === 'false-404' && e.server === 'a' && e.via === 'audit-log')).toHaveLength(
        2,
      );

      const shown = await peerscope(['snapshot', 'show', file]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(
        /\ncluster source \(audit-log \d+\): \d+ requests the servers answered, 2 false 404s, \d+ recent kept; 0 client × deprecated API pair\(s\)\n/,
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
