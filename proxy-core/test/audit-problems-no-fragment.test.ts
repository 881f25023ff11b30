// Bad audit input, as serve and audit meet it: counted and named the same everywhere (one stderr
// line per file and reason, a peerscope_cluster_audit_problems_total series, the cluster source's
// status), and never a fragment of the input in any message. Secrets sit in request bodies, query
// strings and user.extra, and every kind of fault is fed through them; every output is searched.
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditEventsOf, PCR, PCR_PATH, SECRET_IN_BODY, SECRET_IN_EXTRA } from './audit-events.js';
import { eventually } from './harness.js';

const SECRET_IN_QUERY = 'query-token-5d1e9a';
const SECRET_AS_VALUE = 'value-secret-8b3f0c';
const SECRETS = [SECRET_IN_BODY, SECRET_IN_EXTRA, SECRET_IN_QUERY, SECRET_AS_VALUE];

/** One final event of a RequestResponse request: a body and user.extra with secrets, a query with one. */
function secretEvent(): Record<string, unknown> {
  const events = auditEventsOf({
    verb: 'get',
    path: `${PCR_PATH}?token=${SECRET_IN_QUERY}`,
    ref: PCR,
    code: 404,
    level: 'RequestResponse',
  });
  return events.at(-1)!;
}

/** Every kind of fault, each through a secret: broken JSON inside the body, a cut line, bad fields holding one. */
function badLines(): string[] {
  const good = JSON.stringify(secretEvent());
  const at = good.indexOf(SECRET_IN_BODY);
  return [
    `${good.slice(0, at - 1)}X${good.slice(at - 1)}`, // not JSON: a stray character just before the password
    good.slice(0, at + 6), // not JSON: cut inside the password
    JSON.stringify({ ...secretEvent(), apiVersion: SECRET_AS_VALUE }), // not an audit event
    JSON.stringify({ ...secretEvent(), stage: SECRET_AS_VALUE }), // invalid audit event: an enum
    JSON.stringify({ ...secretEvent(), requestReceivedTimestamp: SECRET_AS_VALUE }), // invalid audit event: a time
    JSON.stringify({ ...secretEvent(), verb: { [SECRET_AS_VALUE]: SECRET_IN_BODY } }), // invalid audit event: a type
  ];
}

function expectNoSecret(output: string, where: string): void {
  for (const secret of SECRETS) expect(output.includes(secret), `${where} holds ${secret}`).toBe(false);
}

describe('bad audit input: counted, named, and never quoted', () => {
  let sim: SimCluster;
  let dir: string;
  let log: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    dir = mkdtempSync(join(tmpdir(), 'audit-problems-'));
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
    writeFileSync(join(dir, 'a.token'), 'a-posts-with-this\n');
    log = join(dir, 'a.log');
    writeFileSync(log, [JSON.stringify(secretEvent()), ...badLines()].join('\n') + '\n');
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('audit: every problem named by file, line and kind of fault, none quoting the input, in text and JSON', async () => {
    const run = (output: string) =>
      new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          ['bin/peerscope', 'audit', '--audit-log', `a=${log}`, '--output', output],
          { cwd: repoRoot },
          (_e, stdout, stderr) => resolve({ stdout, stderr }),
        ),
      );
    const json = await run('json');
    const report = JSON.parse(json.stdout) as { problems: string[]; problemCount: number; totals: { requests: number } };
    expect(report.problemCount).toBe(6);
    expect(report.totals.requests).toBe(1);
    expect(report.problems[0]).toMatch(new RegExp(`^${log}:2: not JSON: \\w[\\w ]* at byte \\d+$`));
    expect(report.problems[1]).toMatch(new RegExp(`^${log}:3: not JSON: \\w[\\w ]* at byte \\d+$`));
    expect(report.problems[2]).toBe(`${log}:4: not an audit.k8s.io/v1 Event (apiVersion another string (19 characters), kind "Event")`);
    const text = await run('text');
    for (const [where, output] of Object.entries({
      'json stdout': json.stdout,
      'json stderr': json.stderr,
      'text stdout': text.stdout,
      'text stderr': text.stderr,
    }))
      expectNoSecret(output, where);
  });

  it('serve: one stderr line per file and reason, a problems series; webhook faults alike; nothing quoted', async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
        ...['--ca', join(dir, 'ca.crt'), '--token-file', join(dir, 'token'), '--listen', '127.0.0.1:0'],
        ...['--audit-log', `a=${log}`],
        ...['--audit-webhook-listen', '127.0.0.1:0', '--audit-webhook-ca-out', join(dir, 'webhook-ca.crt')],
        ...['--audit-webhook-token', `a=${join(dir, 'a.token')}`],
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const exited = once(child, 'exit');
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      child.stdout!.on('data', (c) => (stdout += c));
      const port = /^Starting to serve on 127\.0\.0\.1:(\d+)$/.exec(first)![1];
      const get = async (path: string) => (await request(`http://127.0.0.1:${port}${path}`)).body.text();
      const problemsOf = async () =>
        (await get('/.peerscope/metrics')).split('\n').filter((l) => l.startsWith('peerscope_cluster_audit_problems_total{'));
      await eventually(async () => (await problemsOf()).length === 3, 'the problems counted', 10_000);
      // Appended garbage: counted under the reason already told, no new line on stderr.
      appendFileSync(log, 'garbage\n');
      await eventually(
        async () => (await problemsOf()).some((l) => l.includes('reason="not JSON"') && l.endsWith(' 3')),
        'the garbage counted',
        10_000,
      );
      expect((await problemsOf()).sort()).toEqual([
        'peerscope_cluster_audit_problems_total{server="a",server_id="a",source="audit-log",reason="invalid audit event"} 3',
        'peerscope_cluster_audit_problems_total{server="a",server_id="a",source="audit-log",reason="not JSON"} 3',
        'peerscope_cluster_audit_problems_total{server="a",server_id="a",source="audit-log",reason="not an audit event"} 1',
      ]);
      const told = stderr.split('\n').filter((l) => l.startsWith(`peerscope: audit log ${log}`));
      expect(told).toHaveLength(3);
      expect(told[0]).toMatch(
        new RegExp(`^peerscope: audit log ${log} \\(server a\\): not JSON: ${log}:2: not JSON: .* at byte \\d+ \\(the rest is read`),
      );

      // The webhook: a body that is not JSON, and items with the same faults.
      const webhook = /receiving audit events (?:at|on) (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr)![1]!;
      const agent = new Agent({ connect: { ca: readFileSync(join(dir, 'webhook-ca.crt'), 'utf8') } });
      const post = async (body: string) => {
        const res = await request(`${webhook}?token=${SECRET_IN_QUERY}`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: 'Bearer a-posts-with-this', 'content-type': 'application/json' },
          body,
        });
        return { status: res.statusCode, body: await res.body.text() };
      };
      const broken = await post(badLines()[0]!);
      expect(broken.status).toBe(400);
      const items = badLines()
        .slice(2)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect((await post(JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items }))).status).toBe(200);
      await agent.close();
      await eventually(
        async () => (await problemsOf()).some((l) => l.includes('source="audit-webhook"')),
        'the webhook problems counted',
        10_000,
      );

      const outputs = {
        metrics: await get('/.peerscope/metrics'),
        snapshot: await get('/.peerscope/snapshot'),
        impact: await get('/.peerscope/impact'),
        'webhook answer': broken.body,
      };
      for (const [where, output] of Object.entries(outputs)) expectNoSecret(output, where);
      child.kill('SIGINT');
      await exited;
      expectNoSecret(stderr, 'stderr');
      expectNoSecret(stdout, 'stdout');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
