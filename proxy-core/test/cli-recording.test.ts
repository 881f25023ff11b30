// `peerscope serve --record` as an operator runs it — the built CLI in front of simulated v1.36-dev and
// v1.37-dev servers, following their audit logs — and the recording read back by `peerscope recording
// open|report|list`: its counts equal what /.peerscope/metrics counted live; a SIGKILL loses at most
// about a second of what the port answered, and the file still opens; a cut, foreign or non-SQLite
// file is refused naming the file and the fault.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
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

/** The port's requests by outcome, from peerscope_requests_total. */
function portTotals(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of metrics.matchAll(/^peerscope_requests_total\{outcome="([^"]+)"[^}]*\} (\d+)$/gm))
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  return out;
}

describe('peerscope serve --record, read back by peerscope recording', () => {
  let dir: string;
  let sim: SimCluster;
  const recording = () => join(dir, 'session.recording.sqlite');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-recording-'));
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      auditLogDir: dir,
    });
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(file: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
        ...['--ca', join(dir, 'ca.crt'), '--token-file', join(dir, 'token'), '--listen', '127.0.0.1:0', '--policy', 'pin:old'],
        ...sim.servers.flatMap((s) => ['--audit-log', `${s.name}=${simAuditLogFile(dir, s.name)}`]),
        ...['--record', file],
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    return { child, url: `http://127.0.0.1:${Number(/:(\d+)$/.exec(line)?.[1])}`, stderr: () => stderr };
  }

  const through = async (url: string, path: string): Promise<number> => {
    const res = await request(`${url}${path}`, { headers: { 'user-agent': 'recording-test/1.0' } });
    await res.body.dump();
    return res.statusCode;
  };

  it('holds what the port and the audit logs counted live: open and report agree with /.peerscope/metrics', async () => {
    const { child, url, stderr } = await serve(recording());
    const exited = once(child, 'exit');
    let live: Record<string, number> = {};
    try {
      await eventually(() => stderr().includes(`recording to ${recording()}`), 'the recording line', 5_000);
      // Pinned to the older server: pods are served there, PodCertificateRequests rerouted to the newer, a made-up GVR found nowhere.
      for (let i = 0; i < 10; i++) {
        expect(await through(url, PODS_PATH)).toBe(200);
        expect(await through(url, PCR_PATH)).toBe(200);
      }
      for (let i = 0; i < 3; i++) expect(await through(url, '/apis/nothing.example.com/v1/widgets')).toBe(404);
      // Straight to the older server, past the port: three false 404s only its audit log knows.
      for (let i = 0; i < 3; i++) expect((await callServer(sim, sim.servers[0]!.info().url, PCR_PATH)).status).toBe(404);
      const series =
        'peerscope_cluster_false_404_total{server="old",server_id="old",group="certificates.k8s.io",version="v1",resource="podcertificaterequests"} 3';
      let metrics = '';
      await expect
        .poll(async () => (metrics = await fetch(`${url}/.peerscope/metrics`).then((r) => r.text())).includes(series), { timeout: 20_000 })
        .toBe(true);
      live = portTotals(metrics);
      expect(live).toEqual({ local: 10, rerouted: 10, notfound: 3 });
      child.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }

    const report = await peerscope(['recording', 'report', recording(), '-o', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const r = JSON.parse(report.stdout) as RecordingReport;
    // The port's own events: exactly what it counted (its metrics reads are not routed requests).
    expect(r.outcomes.port).toEqual(live);
    expect(r.outcomes['audit-log']?.['false-404']).toBe(3);
    expect(r.false404s).toEqual([
      expect.objectContaining({
        server: 'old',
        gvr: 'certificates.k8s.io/v1/podcertificaterequests',
        count: 3,
        client: expect.any(String),
      }),
    ]);
    expect(r.rerouted).toEqual([{ from: 'old', to: 'new', gvr: 'certificates.k8s.io/v1/podcertificaterequests', count: 10 }]);
    const releases = Object.fromEntries(
      r.servers.map((s) => [s.server, s.changes.filter((c) => c.kind === 'release').map((c) => c.value)]),
    );
    expect(releases).toEqual({ old: ['v1.36.0-dev'], new: ['v1.37.0-dev'] });

    const opened = await peerscope(['recording', 'open', recording()]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain('  old  v1.36-dev\n  new  v1.37-dev\n');
    expect(opened.stdout).toMatch(/ {2}port: local 10, rerouted 10, notfound 3\n/);
    expect(opened.stdout).toMatch(/false 404s by client[^\n]*\n {2}3 {2}\S/);

    const markdown = await peerscope(['recording', 'report', recording()]);
    expect(markdown.stdout).toContain('| old | new | certificates.k8s.io/v1/podcertificaterequests | 10 |');
    const listed = await peerscope(['recording', 'list', dir]);
    expect(listed.stdout).toContain(recording());
    // The port added the token to every request; the recording keeps none.
    expect(readFileSync(recording()).includes(sim.token ?? 'no token')).toBe(false);
  }, 90_000);

  it('loses at most about a second of events to a SIGKILL, and the file reopens', async () => {
    const file = join(dir, 'killed.recording.sqlite');
    const { child, url } = await serve(file);
    const exited = once(child, 'exit');
    const answeredAt: number[] = [];
    let stop = false;
    const loop = async () => {
      while (!stop) {
        try {
          if ((await through(url, PODS_PATH)) === 200) answeredAt.push(Date.now());
        } catch {
          return; // the port is gone
        }
      }
    };
    const loops = Array.from({ length: 4 }, loop);
    await new Promise((r) => setTimeout(r, 3_000));
    const killedAt = Date.now();
    child.kill('SIGKILL');
    await exited;
    stop = true;
    await Promise.all(loops);
    const opened = await peerscope(['recording', 'report', file, '-o', 'json']);
    expect(opened.code, opened.stderr).toBe(0);
    const recorded = (JSON.parse(opened.stdout) as RecordingReport).outcomes.port?.local ?? 0;
    const beforeTheLastSecond = answeredAt.filter((at) => at <= killedAt - 1_000).length;
    console.log(
      `SIGKILL: ${answeredAt.length} requests answered, ${recorded} recorded, ${beforeTheLastSecond} answered over 1 s before the kill`,
    );
    expect(answeredAt.length).toBeGreaterThan(100);
    expect(recorded).toBeGreaterThanOrEqual(beforeTheLastSecond);
    expect(recorded).toBeLessThanOrEqual(answeredAt.length);
  }, 60_000);

  it('refuses a cut, a foreign and a non-SQLite file naming the file and the fault; serve refuses an existing file', async () => {
    const cut = join(dir, 'cut.recording.sqlite');
    copyFileSync(recording(), cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    const foreign = join(dir, 'foreign.sqlite');
    const db = new DatabaseSync(foreign);
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
    db.close();
    const text = join(dir, 'notes.recording.sqlite');
    writeFileSync(text, 'not a database\n');
    const faults: [string, RegExp][] = [
      [cut, /truncated: \d+ bytes, where its header counts \d+ pages/],
      [foreign, /not a Peerscope recording: an SQLite database of another application \(application_id 0x00000000/],
      [text, /not a Peerscope recording: not an SQLite database/],
    ];
    for (const [file, fault] of faults) {
      const r = await peerscope(['recording', 'open', file]);
      expect(r.code, file).toBe(2);
      expect(r.stderr).toContain(`peerscope: ${file}: `);
      expect(r.stderr).toMatch(fault);
    }
    const listed = await peerscope(['recording', 'list', dir]);
    expect(listed.stdout).toMatch(/notes\.recording\.sqlite +refused: not a Peerscope recording/);
    expect(listed.stdout).toMatch(/cut\.recording\.sqlite +refused: truncated/);
    const again = await peerscope(['serve', '--server', 'a=http://127.0.0.1:1', '--record', recording()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--record ${recording()}: already exists`);
  }, 60_000);
});
