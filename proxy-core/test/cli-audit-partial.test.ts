// `peerscope audit` when knowledge is partial, as in a rollout: a server whose discovery cannot be
// read (being upgraded, stopped) never turns a false 404 into a real 404; what is not known is
// `undetermined` and said first; its last known release (its own requests in its log) stands in for
// it and the report says so; a 503 of the peer proxy stays a 503; servers are named as the screens do.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { auditReportSchema, type AuditReport } from '../contract/audit.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditLog, PCR, PCR_PATH, PODS, PODS_PATH } from './audit-events.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function peerscope(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function json(run: Run): AuditReport {
  expect(run.code, run.stderr).toBe(0);
  return auditReportSchema.parse(JSON.parse(run.stdout));
}

describe('peerscope audit with partial knowledge', () => {
  let sim: SimCluster;
  let dir: string;
  let logA: string;
  let logB: string;
  let access: string[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-audit-partial-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
    access = ['--ca', join(dir, 'ca.crt'), '--token-file', join(dir, 'token')];
    // a (v1.36-dev) lacks podcertificaterequests: two 404s (false: b serves it) and a 503 of its peer proxy.
    logA = join(dir, 'a.log');
    writeFileSync(
      logA,
      auditLog([
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 503 },
        { verb: 'list', path: PODS_PATH, ref: PODS, code: 200 },
      ]),
    );
    // b's own log: its loopback client renews its lease as kube-apiserver/v1.37.2.
    logB = join(dir, 'b.log');
    writeFileSync(
      logB,
      auditLog([
        {
          verb: 'update',
          path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-b',
          ref: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'kube-system', name: 'apiserver-b' },
          code: 200,
          user: 'system:apiserver',
          userAgent: 'kube-apiserver/v1.37.2 (linux/amd64) kubernetes/abcdef0',
        },
      ]),
    );
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const serverA = () => `a=${sim.servers[0]!.info().url}`;

  it('with every server read: two false 404s, the 503 is the peer proxy', async () => {
    const report = json(
      await peerscope([
        'audit',
        '--audit-log',
        `a=${logA}`,
        '--server',
        serverA(),
        '--server',
        `b=${sim.servers[1]!.info().url}`,
        ...access,
        '--output',
        'json',
      ]),
    );
    expect(report.totals.outcomes).toMatchObject({ 'false-404': 2, unavailable: 1, local: 1, notfound: 0, undetermined: 0 });
  });

  it('b unreachable: the 404s are undetermined, never real 404s; the 503 stays a 503; the first line says why; JSON says it', async () => {
    const args = ['audit', '--audit-log', `a=${logA}`, '--server', serverA(), '--server', 'b=https://127.0.0.1:1', ...access];
    const report = json(await peerscope([...args, '--output', 'json']));
    expect(report.totals.outcomes).toMatchObject({ 'false-404': 0, notfound: 0, undetermined: 2, unavailable: 1, local: 1 });
    expect(report.totals.unjudged).toBe(2);
    expect(report.undetermined).toMatchObject({ 'discovery-unread': 2 });
    const text = await peerscope(args);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(
      "Not judged: 2 of 4 request(s) are undetermined (2 while a server's discovery was unknown); they are counted as neither local, not found nor false 404.",
    );
    expect(text.stdout).not.toContain('False 404s: none (');
    expect(text.stdout).toContain('False 404s: none among the 2 judged request(s); the 2 undetermined could hold some');
    expect(text.stdout).toContain('nothing known of b: what its discovery would decide is undetermined');
  });

  it('b unreachable but its own log names its release: judged from last known discovery, and the report says so', async () => {
    const args = [
      'audit',
      '--audit-log',
      `a=${logA}`,
      '--audit-log',
      `b=${logB}`,
      '--server',
      serverA(),
      '--server',
      'b=https://127.0.0.1:1',
      ...access,
    ];
    const report = json(await peerscope([...args, '--output', 'json']));
    expect(report.totals.outcomes).toMatchObject({ 'false-404': 2, unavailable: 1, notfound: 0, undetermined: 0 });
    expect(report.false404s?.map((f) => [f.server, f.servedBy, f.count])).toEqual([['a', ['b'], 2]]);
    expect(report.standIns).toEqual([{ server: 'b', release: 'v1.37-dev', from: 'log', requests: 5 }]);
    const text = await peerscope(args);
    expect(text.stdout).toContain(
      "b: its discovery unread now, judged from last known discovery — the catalog's v1.37-dev (the release its own requests in the log named), for 5 request(s)",
    );
  });

  it('--audit-log takes the host name the screens print as well as the lease name; a name of no server is an error', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
    const report = json(await peerscope(['audit', '--audit-log', `a=${logA}`, '--kubeconfig', kubeconfig, '--output', 'json']));
    expect(report.inputs.map((i) => i.server)).toEqual(['apiserver-a']);
    expect(report.totals.unjudged).toBe(0);
    expect(report.totals.outcomes).toMatchObject({ 'false-404': 2 });
    const wrong = await peerscope(['audit', '--audit-log', `c=${logA}`, '--kubeconfig', kubeconfig]);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toBe(
      `peerscope: --audit-log c=${logA}: no server is named "c" (servers: a (apiserver-a), b (apiserver-b)); see 'peerscope audit --help'\n`,
    );
  });

  it('nothing to judge against: false 404s are null, the first line says how many were not judged', async () => {
    const run = await peerscope(['audit', '--audit-log', `a=${logA}`]);
    expect(run.stdout.split('\n')[0]).toMatch(/^Not judged: 4 of 4 request\(s\) — no discovery to judge by/);
  });
});
