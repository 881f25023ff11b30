// `peerscope report --audit-webhook-listen … --for DURATION`: the built CLI receives the EventList
// batches the servers' audit webhook posts (real HTTPS posts, each server named by its bearer token)
// until the duration ends or Ctrl-C, then reports the clients the upgrade breaks — judged against
// simulated apiservers serving real releases' discovery (v1.36-dev, v1.37-dev), read from a kubeconfig.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { impactReportSchema } from '../contract/impact.js';
import { loadRelease } from '../engine/releases/index.js';
import { createCertificateAuthority, issueServerCertificate } from '../engine/tls/certs.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditEventsOf, PCR, PCR_PATH, type AuditRequest } from './audit-events.js';

const LEGACY = 'legacy-operator/v0.8.3 (linux/amd64) kubernetes/1a2b3c4/legacy-controller';
const CERTS = 'cert-controller/v0.9.1';
const DRA = 'dra-driver/v2.0.0';
const TOKEN_A = 'token-of-apiserver-a-5f0c1d';

/** One batch as kube-apiserver's webhook backend posts it: the items without apiVersion and kind of their own. */
function eventList(requests: readonly AuditRequest[]): string {
  const items = requests.flatMap(auditEventsOf).map(({ apiVersion: _a, kind: _k, ...item }) => item);
  return JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items });
}

describe('peerscope report --audit-webhook-listen (the CLI)', () => {
  let sim: SimCluster;
  let dir: string;
  let kubeconfig: string;
  let ca: string;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-report-webhook-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'] });
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig());
    const authority = await createCertificateAuthority('report-webhook-ca');
    const serving = await issueServerCertificate(authority, { commonName: 'peerscope-audit-webhook', hosts: ['127.0.0.1'] });
    ca = authority.cert;
    for (const [name, text] of Object.entries({ cert: serving.cert, key: serving.key, token: TOKEN_A }))
      writeFileSync((files[name] = join(dir, name)), text, { mode: 0o600 });
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('collects the posted batches until Ctrl-C, then names the clients the upgrade breaks', async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'report',
        '--kubeconfig',
        kubeconfig,
        '--to',
        'v1.37-dev',
        '--audit-webhook-listen',
        '127.0.0.1:0',
        '--audit-webhook-cert',
        files.cert!,
        '--audit-webhook-key',
        files.key!,
        '--audit-webhook-token',
        `apiserver-a=${files.token!}`,
        '--for',
        '10m',
        '--output',
        'json',
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const stderr: string[] = [];
    const lines = createInterface({ input: child.stderr! });
    const url = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        stderr.push(line);
        const m = /receiving audit events at (https:\/\/\S+) for 600 s/.exec(line);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`report exited ${code} before listening: ${stderr.join('\n')}`)));
    });

    const agent = new Agent({ connect: { ca } });
    const post = async (body: string, token: string) => {
      const res = await request(`${url}/`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      return { status: res.statusCode, text: await res.body.text() };
    };
    try {
      const legacy = {
        verb: 'list',
        path: '/apis/storage.k8s.io/v1beta1/volumeattributesclasses',
        ref: { group: 'storage.k8s.io', version: 'v1beta1', resource: 'volumeattributesclasses' },
        code: 200,
        user: 'system:serviceaccount:legacy:operator',
        userAgent: LEGACY,
      };
      const first = eventList([
        legacy,
        legacy,
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, userAgent: CERTS, user: 'system:serviceaccount:certs:controller' },
      ]);
      expect((await post(first, TOKEN_A)).status).toBe(200);
      // A batch posted twice (the webhook backend retries) counts once.
      expect((await post(first, TOKEN_A)).status).toBe(200);
      // A deprecated API, as the server marks it (served by both releases and by the target).
      const dra = {
        verb: 'get',
        path: '/apis/resource.k8s.io/v1beta2/deviceclasses/gpu',
        ref: { group: 'resource.k8s.io', version: 'v1beta2', resource: 'deviceclasses', name: 'gpu' },
        code: 200,
        user: 'system:serviceaccount:dra:driver',
        userAgent: DRA,
        deprecated: { removedRelease: '1.39' },
      };
      expect((await post(eventList([dra]), TOKEN_A)).status).toBe(200);
      // A sender not allowed, and a body that is no EventList: refused, counted, never fatal.
      expect((await post(eventList([legacy]), 'not-a-known-token')).status).toBe(401);
      expect((await post('{"kind":"Status"}', TOKEN_A)).status).toBe(400);
    } finally {
      await agent.close();
    }
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr.join('\n')).toBe(0);
    expect(stderr.join('\n')).toMatch(/received 4 request\(s\) from the audit webhook \(3 batch\(es\) from apiserver-a, 2 problem\(s\)\)/);

    const report = impactReportSchema.parse(JSON.parse(stdout));
    expect(report.source).toBe('audit-logs');
    expect(
      report.findings.map((f) => [
        f.impact,
        f.client.userAgent,
        f.client.identity,
        `${f.group}/${f.version}/${f.resource}`,
        f.verbs[0]?.count,
      ]),
    ).toEqual([
      ['removed', LEGACY, 'system:serviceaccount:legacy:operator', 'storage.k8s.io/v1beta1/volumeattributesclasses', 2],
      // A deprecated version a newer one serves too: the client will have to move (issue 45); the warning is quoted.
      ['superseded', DRA, 'system:serviceaccount:dra:driver', 'resource.k8s.io/v1beta2/deviceclasses', 1],
      ['skewed', CERTS, 'system:serviceaccount:certs:controller', 'certificates.k8s.io/v1/podcertificaterequests', 1],
    ]);
    expect(report.findings[1]!.message).toContain(
      'resource.k8s.io/v1 serves it too → it will have to move there before v1beta2 is removed',
    );
    expect(report.findings[1]!.message).toContain('removed in 1.39 (k8s.io/removed-release)');
    expect(stdout).not.toContain(TOKEN_A);
  }, 120_000);
});
