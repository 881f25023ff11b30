// `peerscope audit` as an operator runs it: the built CLI reading audit logs written as kube-apiserver
// writes them, judged against simulated HTTPS apiservers serving the discovery of real releases
// (v1.36-dev lacks certificates.k8s.io/v1 podcertificaterequests, v1.37-dev serves it): read live
// from a kubeconfig, from --server with --ca and --token-file, and offline from a routing snapshot.
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { auditReportSchema, type AuditReport } from '../contract/audit.js';
import { impactReportSchema } from '../contract/impact.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditLog, PCR, PCR_PATH, PODS, PODS_PATH } from './audit-events.js';
import { callServer } from './sim-client.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI without blocking this process: the simulated servers it reads live here. */
function peerscope(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/peerscope', ...args],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

function json(run: Run): AuditReport {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return auditReportSchema.parse(JSON.parse(run.stdout));
}

const operator = 'kubectl/v1.36.3 (linux/amd64) kubernetes/0a1b2c3';
const controller = 'cert-controller/v0.9.1';

describe('peerscope audit (the CLI)', () => {
  let sim: SimCluster;
  let dir: string;
  let kubeconfig: string;
  let logA: string;
  let logB: string;
  let simAuditDir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-audit-'));
    simAuditDir = join(dir, 'sim-audit');
    mkdirSync(simAuditDir);
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['a', 'b'],
      auditLogDir: simAuditDir,
    });
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
    // Server a (v1.36-dev), its own Mixed Version Proxy off: three false 404s for two clients, pods served.
    logA = join(dir, 'a-audit.log');
    writeFileSync(
      logA,
      auditLog([
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        {
          verb: 'watch',
          path: `${PCR_PATH}?watch=true`,
          ref: PCR,
          code: 404,
          user: 'system:serviceaccount:certs:controller',
          userAgent: controller,
        },
        { verb: 'list', path: PODS_PATH, ref: PODS, code: 200 },
        { verb: 'get', path: '/version', code: 200 },
      ]) + '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"cut-he\n',
    );
    // Server b (v1.37-dev) serves the GVR: its requests are local. Its log is compressed, as rotated ones are.
    logB = join(dir, 'b-audit.log.gz');
    writeFileSync(logB, gzipSync(auditLog([{ verb: 'list', path: PCR_PATH, ref: PCR, code: 200, userAgent: controller }])));
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('judges against the discovery read from a kubeconfig: the false 404s, who got them, where, and who serves the GVR', async () => {
    const report = json(
      await peerscope([
        'audit',
        '--audit-log',
        `apiserver-a=${logA}`,
        '--audit-log',
        `apiserver-b=${logB}`,
        '--kubeconfig',
        kubeconfig,
        '--output',
        'json',
      ]),
    );
    expect(report.judgedAgainst).toMatchObject({
      kind: 'kubeconfig',
      servers: [
        { name: 'apiserver-a', gitVersion: 'v1.36.0-dev', gvrs: expect.any(Number) },
        { name: 'apiserver-b', gitVersion: 'v1.37.0-dev', gvrs: expect.any(Number) },
      ],
    });
    expect(report.totals).toMatchObject({ requests: 6, unjudged: 0, codes: { '200': 3, '404': 3 } });
    expect(report.totals.outcomes).toMatchObject({ local: 2, 'false-404': 3, 'non-resource': 1, rerouted: 0, notfound: 0 });
    expect(report.false404s?.map((f) => [f.user, f.userAgent, f.server, f.gvr, f.servedBy, f.count])).toEqual([
      ['kubernetes-admin', operator, 'apiserver-a', PCR, ['apiserver-b'], 2],
      ['system:serviceaccount:certs:controller', controller, 'apiserver-a', PCR, ['apiserver-b'], 1],
    ]);
    expect(report.perServer.map((s) => [s.server, s.requests, s.outcomes?.['false-404']])).toEqual([
      ['apiserver-a', 5, 3],
      ['apiserver-b', 1, 0],
    ]);
    // The half-written last line is named, and nothing else is lost.
    expect(report.problems).toEqual([`${logA}:11: not JSON: unexpected end of string at byte 76`]);
    // The kubeconfig's credentials never reach the output.
    expect(JSON.stringify(report)).not.toContain(sim.token!);
  }, 60_000);

  it('text: says what it judged against, lists the false 404s first, per server, client and GVR', async () => {
    const run = await peerscope([
      'audit',
      '--audit-log',
      logA,
      '--audit-log',
      logB,
      ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
      '--ca',
      join(dir, 'ca.crt'),
      '--token-file',
      join(dir, 'token'),
    ]);
    expect(run.code).toBe(0);
    // Bare files matched to the servers their names hold (a-audit.log → a, b-audit.log.gz → b).
    expect(run.stdout).toMatch(
      /^Read 2 audit log\(s\): 6 request\(s\) counted once each \(6 earlier-stage event\(s\) not counted, 0 duplicate\(s\) dropped\), 1 problem\(s\)\n/,
    );
    expect(run.stdout).toMatch(
      /Judged against the servers' discovery read at \S+Z .*\n {2}a +v1\.36\.0-dev +\d+ GVRs\n {2}b +v1\.37\.0-dev +\d+ GVRs\n/,
    );
    expect(run.stdout).toContain('False 404s: 3 request(s) answered 404 by a server that lacked the GVR while a peer served it');
    expect(run.stdout).toMatch(
      /\n {2}2 +a +certificates\.k8s\.io\/v1 podcertificaterequests +b +kubectl\/v1\.36\.3 .*\(kubernetes-admin\)/,
    );
    expect(run.stdout).toMatch(/Per server\n.*SERVER +REQUESTS +LOCAL +FALSE 404 .*\n {2}a +5 +1 +3 /);
    expect(run.stdout).toMatch(/Per GVR\n.*\n {2}certificates\.k8s\.io\/v1 podcertificaterequests +4 +1 +3 /);
    expect(run.stdout).toContain(`${logA}:11: not JSON`);
    // Not a terminal: no progress line.
    expect(run.stderr).toBe('');
  }, 60_000);

  it('judges offline against a routing snapshot, and reads standard input', async () => {
    const snapshot = join(dir, 'snapshot.json');
    expect((await peerscope(['snapshot', 'save', '--kubeconfig', kubeconfig, '--out', snapshot])).code).toBe(0);
    const report = json(
      await peerscope(
        ['audit', '--audit-log', 'apiserver-a=-', '--snapshot', snapshot, '--output', 'json'],
        auditLog([{ verb: 'get', path: `${PCR_PATH}/x`, ref: { ...PCR, name: 'x' }, code: 404 }]),
      ),
    );
    expect(report.judgedAgainst).toMatchObject({
      kind: 'snapshot',
      from: snapshot,
      servers: [{ name: 'apiserver-a' }, { name: 'apiserver-b' }],
    });
    expect(report.false404s?.map((f) => [f.server, f.count])).toEqual([['apiserver-a', 1]]);
  }, 60_000);

  it('without discovery to judge by, counts and says so; what was not judged is null', async () => {
    const report = json(await peerscope(['audit', '--audit-log', `cp-1=${logA}`, '--output', 'json']));
    expect(report.judgedAgainst).toEqual({ kind: 'none', servers: [] });
    expect(report.totals).toEqual({ requests: 5, outcomes: null, unjudged: 5, codes: { '200': 2, '404': 3 } });
    expect(report.false404s).toBeNull();
    const text = await peerscope(['audit', '--audit-log', `cp-1=${logA}`]);
    expect(text.stdout).toContain('Not judged: no discovery to judge by (give --kubeconfig, --server or --snapshot)');
  });

  it('names what is wrong: a file that matches no server, --snapshot with --server', async () => {
    writeFileSync(join(dir, 'audit.log'), auditLog([{ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }]));
    const unmatched = await peerscope(['audit', '--audit-log', join(dir, 'audit.log'), '--kubeconfig', kubeconfig]);
    expect(unmatched.code).toBe(2);
    expect(unmatched.stderr).toContain('its file name names no server (servers: a (apiserver-a), b (apiserver-b)); give it as SERVER=');
    const both = await peerscope(['audit', '--audit-log', `x=${logA}`, '--snapshot', 'x.json', '--server', 'a=http://127.0.0.1:1']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--snapshot: judges offline');
  });

  it('--follow prints each false 404 as it is written, and Ctrl-C prints the counts of what was read', async () => {
    const live = join(dir, 'live.log');
    writeFileSync(live, auditLog([{ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }]));
    const child = spawn(
      process.execPath,
      ['bin/peerscope', 'audit', '--follow', '--audit-log', `apiserver-a=${live}`, '--kubeconfig', kubeconfig],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout });
    const out: string[] = [];
    const firstFinding = new Promise<void>((resolve) =>
      lines.on('line', (l) => {
        out.push(l);
        if (l.includes('FALSE 404')) resolve();
      }),
    );
    try {
      // Written once the follow has most likely reached the end of the file (were it slower to start, it would
      // read the line at once instead: the finding must be printed either way).
      await new Promise((r) => setTimeout(r, 1_500));
      appendFileSync(live, auditLog([{ verb: 'get', path: `${PCR_PATH}/y`, ref: { ...PCR, name: 'y' }, code: 404 }]));
      await firstFinding;
      expect(out[0]).toMatch(/Z {2}FALSE 404 {2}apiserver-a {2}get certificates\.k8s\.io\/v1 podcertificaterequests {2}404 {2}kubectl/);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      const summary = out.join('\n');
      expect(summary).toContain('Stopped (Ctrl-C); read until then: 1 audit log(s): 2 request(s)');
      // Servers as the screens print them: host name.
      expect(summary).toMatch(/Per server\n.*\n {2}a +2 +1 +1 /);
      expect(stderr).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
  it('counts exactly what was sent straight to the simulated servers, from the audit logs they write', async () => {
    const [a, b] = sim.servers.map((s) => s.info().url) as [string, string];
    const ua = { 'user-agent': 'rollout-check/1.0' };
    // Sent to the servers themselves, not through a port: 3 false 404s at a, the GVR served at b, pods at a.
    for (let i = 0; i < 3; i++) expect((await callServer(sim, a, PCR_PATH, { headers: ua })).status).toBe(404);
    expect((await callServer(sim, b, PCR_PATH, { headers: ua })).status).toBe(200);
    expect((await callServer(sim, a, '/api/v1/namespaces/default/pods', { headers: ua })).status).toBe(200);
    const logs = ['a', 'b'].map((n) => join(simAuditDir, `apiserver-${n}-audit.log`));
    // Each event is written once its response has ended: wait for the five.
    const sent = () =>
      logs
        .map((f) => readFileSync(f, 'utf8'))
        .join('')
        .split('rollout-check/1.0').length - 1;
    for (let i = 0; i < 100 && sent() < 5; i++) await new Promise((r) => setTimeout(r, 20));
    // Bare files: matched to apiserver-a and apiserver-b by their names.
    const report = json(
      await peerscope(['audit', '--audit-log', logs[0]!, '--audit-log', logs[1]!, '--kubeconfig', kubeconfig, '--output', 'json']),
    );
    expect(report.problemCount).toBe(0);
    const client = report.perClient.find((c) => c.userAgent === 'rollout-check/1.0');
    expect(client).toMatchObject({ user: 'sim-admin', requests: 5, unjudged: 0, codes: { '200': 2, '404': 3 } });
    expect(client?.outcomes).toMatchObject({ local: 2, 'false-404': 3 });
    expect(report.false404s).toEqual([
      expect.objectContaining({
        userAgent: 'rollout-check/1.0',
        user: 'sim-admin',
        server: 'apiserver-a',
        gvr: PCR,
        servedBy: ['apiserver-b'],
        count: 3,
      }),
    ]);
  }, 60_000);
  it('report --audit-log: the clients of the whole cluster that the upgrade breaks, from the audit logs', async () => {
    const log = join(dir, 'report-a.log');
    const legacy = 'legacy-operator/v0.8.3 (linux/amd64) kubernetes/1a2b3c4/legacy-controller';
    writeFileSync(
      log,
      auditLog([
        // Served by a (v1.36-dev), gone in v1.37-dev: removed by the upgrade.
        ...Array.from({ length: 2 }, () => ({
          verb: 'list',
          path: '/apis/storage.k8s.io/v1beta1/volumeattributesclasses',
          ref: { group: 'storage.k8s.io', version: 'v1beta1', resource: 'volumeattributesclasses' },
          code: 200,
          user: 'system:serviceaccount:legacy:operator',
          userAgent: legacy,
        })),
        // Served by b only: false 404s during the rollout.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, userAgent: controller, user: 'system:serviceaccount:certs:controller' },
        // Refused before routing: not a use of the API.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 403, user: 'intern' },
      ]),
    );
    const run = await peerscope([
      'report',
      '--audit-log',
      `apiserver-a=${log}`,
      '--kubeconfig',
      kubeconfig,
      '--to',
      'v1.37-dev',
      '--output',
      'json',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('peerscope: read 1 audit log(s): 4 request(s), 0 problem(s)\n');
    const report = impactReportSchema.parse(JSON.parse(run.stdout));
    expect(report.source).toBe('audit-logs');
    // The identity stays the key; the sentences name the servers as the screens do (host names).
    expect(report.current).toEqual([
      { name: 'apiserver-a', displayName: 'a', gitVersion: 'v1.36.0-dev' },
      { name: 'apiserver-b', displayName: 'b', gitVersion: 'v1.37.0-dev' },
    ]);
    expect(
      report.findings.map((f) => [f.impact, f.client.identity, f.client.userAgent, `${f.group}/${f.version}/${f.resource}`, f.verbs]),
    ).toEqual([
      [
        'removed',
        'system:serviceaccount:legacy:operator',
        legacy,
        'storage.k8s.io/v1beta1/volumeattributesclasses',
        [expect.objectContaining({ verb: 'list', count: 2 })],
      ],
      [
        'skewed',
        'system:serviceaccount:certs:controller',
        controller,
        'certificates.k8s.io/v1/podcertificaterequests',
        [expect.objectContaining({ verb: 'list', count: 1 })],
      ],
    ]);
    expect(report.findings[1]?.evidence).toMatchObject({ servedNowBy: ['apiserver-b'], notServedNowBy: ['apiserver-a'], notFound: 1 });
    expect(report.findings[1]?.message).not.toContain('apiserver-');
    const text = await peerscope(['report', '--audit-log', `apiserver-a=${log}`, '--kubeconfig', kubeconfig, '--to', 'v1.37-dev']);
    expect(text.stdout).toMatch(/^Upgrade impact: .* → v1\.37-dev, from the requests of 2 clients in the apiservers' audit logs, /);
    expect(text.stdout).toContain('legacy-operator (legacy-controller) lists storage.k8s.io/v1beta1 volumeattributesclasses');
  }, 60_000);
  it('serve --audit-log: what each server answered, false 404s included, in /.peerscope/metrics', async () => {
    const logs = join(dir, 'serve-audit');
    mkdirSync(logs);
    const cluster = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['a', 'b'],
      auditLogDir: logs,
    });
    writeFileSync(join(dir, 'serve-ca.crt'), cluster.ca ?? '');
    writeFileSync(join(dir, 'serve-token'), `${cluster.token}\n`);
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...cluster.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
        '--ca',
        join(dir, 'serve-ca.crt'),
        '--token-file',
        join(dir, 'serve-token'),
        '--listen',
        '127.0.0.1:0',
        // Bare files: apiserver-a-audit.log is a's, apiserver-b-audit.log b's.
        '--audit-log',
        join(logs, 'apiserver-a-audit.log'),
        '--audit-log',
        join(logs, 'apiserver-b-audit.log'),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const port = Number(/:(\d+)$/.exec(line)?.[1]);
      const [a, b] = cluster.servers.map((s) => s.info().url) as [string, string];
      // Straight to the servers, past the port: the port never sees these.
      for (let i = 0; i < 2; i++) expect((await callServer(cluster, a, PCR_PATH)).status).toBe(404);
      expect((await callServer(cluster, b, PCR_PATH)).status).toBe(200);
      const falseSeries =
        'peerscope_cluster_false_404_total{server="a",server_id="a",group="certificates.k8s.io",version="v1",resource="podcertificaterequests"} 2';
      let metrics = '';
      for (let i = 0; i < 100 && !metrics.includes(falseSeries); i++) {
        await new Promise((r) => setTimeout(r, 100));
        metrics = await fetch(`http://127.0.0.1:${port}/.peerscope/metrics`).then((r) => r.text());
      }
      expect(metrics).toContain(falseSeries);
      expect(metrics).toContain('peerscope_cluster_requests_total{server="a",server_id="a",outcome="false-404",code="404"} 2');
      expect(metrics).toMatch(/peerscope_cluster_requests_total\{server="b",server_id="b",outcome="local",code="200"\} [1-9]/);
      // The port's own counters saw none of them.
      expect(metrics).not.toMatch(/peerscope_requests_total\{[^}]*resource="podcertificaterequests"/);
      // One report for every caller: the port's /.peerscope/impact has the cluster source too, and names
      // the client whose false 404s /.peerscope/metrics counts.
      const from = await peerscope(['report', '--from', `http://127.0.0.1:${port}`, '--output', 'json']);
      expect(from.code, from.stderr).toBe(0);
      const report = impactReportSchema.parse(JSON.parse(from.stdout));
      expect(report.sources).toContain('cluster-audit');
      const skewed = report.findings.find((f) => f.resource === 'podcertificaterequests' && f.source === 'cluster-audit');
      expect(skewed, JSON.stringify(report.findings.map((f) => [f.resource, f.source]))).toBeDefined();
      expect(skewed!.impact).toBe('skewed');
      const text = await peerscope(['report', '--from', `http://127.0.0.1:${port}`]);
      expect(text.stdout).not.toContain('from the requests of 0 clients');
      expect(text.stdout).toContain(skewed!.message);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await cluster.close();
    }
  }, 60_000);
});
