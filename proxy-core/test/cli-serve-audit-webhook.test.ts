// `peerscope serve --audit-webhook-listen` as an operator runs it: the built CLI in front of simulated
// v1.36-dev and v1.37-dev servers, a generated receiver certificate whose CA it writes out, and each
// server named by its own token. Posted EventLists are counted as followed logs are (each request
// once, false 404s judged by the route table), a stranger is refused and counted, bad flags exit 2.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { auditEventsOf, PCR, PCR_PATH, PODS, PODS_PATH } from './audit-events.js';
import { eventually } from './harness.js';

describe('peerscope serve --audit-webhook-listen (the CLI)', () => {
  let sim: SimCluster;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
    dir = mkdtempSync(join(tmpdir(), 'serve-webhook-'));
    writeFileSync(join(dir, 'ca.crt'), sim.ca ?? '');
    writeFileSync(join(dir, 'token'), `${sim.token}\n`);
    writeFileSync(join(dir, 'old.token'), 'old-posts-with-this\n');
    writeFileSync(join(dir, 'new.token'), 'new-posts-with-this\n');
  });
  afterAll(() => sim?.close());

  it('counts the false 404s a server posts, once each, and refuses a stranger; TLS verified with the CA it wrote', async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/peerscope',
        'serve',
        ...sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]),
        ...['--ca', join(dir, 'ca.crt'), '--token-file', join(dir, 'token'), '--listen', '127.0.0.1:0'],
        ...['--audit-webhook-listen', '127.0.0.1:0', '--audit-webhook-ca-out', join(dir, 'webhook-ca.crt')],
        ...['--audit-webhook-token', `old=${join(dir, 'old.token')}`, '--audit-webhook-token', `new=${join(dir, 'new.token')}`],
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const exited = once(child, 'exit');
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const port = /^Starting to serve on 127\.0\.0\.1:(\d+)$/.exec(first)?.[1];
      await eventually(() => /receiving audit events on https:\/\/127\.0\.0\.1:\d+/.test(stderr), 'the receiver listening', 5_000);
      const webhook = /receiving audit events on (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr)![1]!;
      const agent = new Agent({ connect: { ca: readFileSync(join(dir, 'webhook-ca.crt'), 'utf8') } });
      const post = async (token: string, items: unknown[]) => {
        const res = await request(webhook, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items }),
        });
        await res.body.text();
        return res.statusCode;
      };
      // Two GETs of what only v1.37-dev serves, sent to old (false 404s), one list of pods; every stage, the last batch again.
      const falses = [1, 2].flatMap(() =>
        auditEventsOf({ verb: 'list', path: PCR_PATH, ref: PCR, code: 404, userAgent: 'cert-rotator/v0.3.1' }),
      );
      const pods = auditEventsOf({ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 });
      expect(await post('old-posts-with-this', falses)).toBe(200);
      expect(await post('old-posts-with-this', pods)).toBe(200);
      expect(await post('old-posts-with-this', pods)).toBe(200);
      expect(await post('someone-else', pods)).toBe(401);
      const metrics = await (await request(`http://127.0.0.1:${port}/.peerscope/metrics`)).body.text();
      await agent.close();
      const lines = metrics.split('\n').filter((l) => l.startsWith('peerscope_cluster_'));
      console.log(lines.join('\n'));
      expect(lines).toEqual(
        expect.arrayContaining([
          'peerscope_cluster_requests_total{server="old",server_id="old",outcome="false-404",code="404"} 2',
          'peerscope_cluster_requests_total{server="old",server_id="old",outcome="local",code="200"} 1',
          'peerscope_cluster_false_404_total{server="old",server_id="old",group="certificates.k8s.io",version="v1",resource="podcertificaterequests"} 2',
          'peerscope_cluster_webhook_batches_total{server="old",server_id="old"} 3',
          'peerscope_cluster_webhook_problems_total{sender="127.0.0.1",reason="sender not allowed"} 1',
        ]),
      );
      expect(stderr).toContain('peerscope: audit webhook: 127.0.0.1: sender not allowed: its bearer token names no server');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('a receiver nobody may post to, or without a certificate, is one line and exit 2', () => {
    const run = (args: string[]) =>
      spawnSync(
        process.execPath,
        ['bin/peerscope', 'serve', '--server', 'a=http://127.0.0.1:1', '--audit-webhook-listen', '127.0.0.1:0', ...args],
        {
          cwd: repoRoot,
          encoding: 'utf8',
        },
      );
    const nobody = run(['--audit-webhook-ca-out', join(dir, 'x.crt')]);
    expect(nobody.status).toBe(2);
    expect(nobody.stderr.trim()).toBe(
      'peerscope: --audit-webhook-listen: nobody could post; give --audit-webhook-token SERVER=FILE or --audit-webhook-client-ca FILE',
    );
    const noCert = run(['--audit-webhook-token', `a=${join(dir, 'old.token')}`]);
    expect(noCert.status).toBe(2);
    expect(noCert.stderr.trim()).toMatch(
      /^peerscope: --audit-webhook-listen: needs a certificate; give --audit-webhook-cert and --audit-webhook-key, or --audit-webhook-ca-out FILE/,
    );
    const missingToken = run(['--audit-webhook-token', 'a=/nonexistent/token', '--audit-webhook-ca-out', join(dir, 'x.crt')]);
    expect(missingToken.status).toBe(2);
    expect(missingToken.stderr.trim()).toBe(
      "peerscope: --audit-webhook-token a=/nonexistent/token: cannot read: no such file or directory (ENOENT); see 'peerscope serve --help'",
    );
  });
});
