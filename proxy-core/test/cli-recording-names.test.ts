// A recording names the servers as a person knows them: `peerscope serve --record` (the built CLI, a
// real core) finds simulated HTTPS servers through a kubeconfig's identity leases — identity
// `apiserver-old`, host name `old` — and follows their audit logs; `peerscope recording open` and
// `report -o markdown|json` then name each server by its host name with the lease name beside it, in
// the servers' list and timeline, the false 404s and the reroutes, as the live CLI does.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import type { RecordingReport } from '../engine/recording/report.js';
import { loadRelease } from '../engine/releases/index.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../sim/index.js';
import { PCR_PATH, PODS_PATH } from './audit-events.js';
import { eventually } from './harness.js';
import { callServer } from './sim-client.js';

function peerscope(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('a recording of servers found by their identity leases', () => {
  let dir: string;
  let sim: SimCluster;
  const file = () => join(dir, 'leases.recording.sqlite');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-recording-names-'));
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      auditLogDir: dir,
    });
    writeFileSync(join(dir, 'kubeconfig'), sim.kubeconfig());
    // Recorded by serve: pinned to the older server, PodCertificateRequests are rerouted to the newer; straight to the older, false 404s.
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...['--kubeconfig', join(dir, 'kubeconfig'), '--listen', '127.0.0.1:0', '--policy', 'pin:old', '--server-metrics', '0'],
        ...sim.servers.flatMap((s) => ['--audit-log', `${s.name}=${simAuditLogFile(dir, s.name)}`]),
        ...['--record', file()],
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HTTPS_PROXY: '' } },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const exited = once(child, 'exit');
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const url = `http://127.0.0.1:${Number(/:(\d+)$/.exec(line)?.[1])}`;
      await eventually(() => stderr.includes(`recording to ${file()}`), 'the recording line', 5_000);
      for (let i = 0; i < 5; i++) {
        for (const path of [PODS_PATH, PCR_PATH])
          expect(await fetch(`${url}${path}`).then((r) => r.arrayBuffer().then(() => r.status))).toBe(200);
      }
      for (let i = 0; i < 3; i++) expect((await callServer(sim, sim.servers[0]!.info().url, PCR_PATH)).status).toBe(404);
      const falseCounted = /peerscope_cluster_false_404_total\{[^}]*server_id="apiserver-old"[^}]*\} 3/;
      await eventually(
        async () => falseCounted.test(await fetch(`${url}/.peerscope/metrics`).then((r) => r.text())),
        'the false 404s counted live',
        20_000,
      );
      child.kill('SIGTERM');
      expect((await exited)[0], stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('report -o json carries each server’s host name beside its identity', async () => {
    const out = await peerscope(['recording', 'report', file(), '-o', 'json']);
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as RecordingReport;
    expect(r.servers.map((s) => [s.server, s.displayName]).sort()).toEqual([
      ['apiserver-new', 'new'],
      ['apiserver-old', 'old'],
    ]);
    // The identity stays the key of everything else.
    expect(r.rerouted).toEqual([
      { from: 'apiserver-old', to: 'apiserver-new', gvr: 'certificates.k8s.io/v1/podcertificaterequests', count: 5 },
    ]);
    expect(r.false404s.map((f) => [f.server, f.count])).toEqual([['apiserver-old', 3]]);
  });

  it('recording open and the Markdown report name the servers by host name, the lease name beside it', async () => {
    const opened = await peerscope(['recording', 'open', file()]);
    expect(opened.code, opened.stderr).toBe(0);
    // In the order the leases were found.
    expect(opened.stdout).toMatch(/^servers:\n( {2}"(old|new)" \(apiserver-\2\) {2}v1\.3[67]-dev\n){2}requests by outcome:/m);
    expect(opened.stdout).toContain('  "old" (apiserver-old)  v1.36-dev\n');
    expect(opened.stdout).toContain('  "new" (apiserver-new)  v1.37-dev\n');

    const markdown = await peerscope(['recording', 'report', file()]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/\| \S+ \S+ \| "old" \(apiserver-old\) \| health \| ready \|/);
    expect(markdown.stdout).toMatch(
      /\| \S+ \| [^|]+ \| "old" \(apiserver-old\) \| certificates\.k8s\.io\/v1\/podcertificaterequests \| 3 \|/,
    );
    expect(markdown.stdout).toContain(
      '| "old" (apiserver-old) | "new" (apiserver-new) | certificates.k8s.io/v1/podcertificaterequests | 5 |',
    );
    // No table names a server by its identity alone.
    expect(markdown.stdout).not.toMatch(/\| apiserver-(old|new) \|/);
  });
});
