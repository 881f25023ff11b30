// `peerscope report` as a CI gate reads it, on the built CLI against a running demo port: no request
// seen is said first and exits 3 (0 with --allow-empty); a target older than the servers is a
// downgrade, titled so; --fail-on gives exit 4 when a finding of a named kind is there.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { startDemoSession, type DemoSession } from '../hosts/session/demo.js';
import { catalogEntries, loadRelease } from '../engine/releases/index.js';

function peerscope(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A GVR v1.37-dev serves and v1.36-dev does not: what a downgrade removes. */
function gainedIn137(): { group: string; version: string; resource: string } {
  const old = new Set([...catalogEntries(loadRelease('v1.36-dev'))].map((e) => `${e.group}/${e.version}/${e.resource.name}`));
  const entry = [...catalogEntries(loadRelease('v1.37-dev'))].find(
    (e) => e.group !== '' && !old.has(`${e.group}/${e.version}/${e.resource.name}`) && e.resource.verbs.includes('list'),
  );
  if (!entry) throw new Error('the catalog has no GVR v1.37-dev gained');
  return { group: entry.group, version: entry.version, resource: entry.resource.name };
}

describe('peerscope report as a gate (servers at v1.37-dev)', () => {
  let session: DemoSession;
  let url: string;
  beforeAll(async () => {
    session = await startDemoSession({
      from: 'v1.37-dev',
      to: 'v1.37-dev',
      servers: 2,
      listen: { host: '127.0.0.1', port: 0 },
      trafficRps: 0,
    });
    url = session.address.url;
  });
  afterAll(() => session?.close());

  it('with no request seen: says so first and exits 3; --allow-empty exits 0', async () => {
    const empty = await peerscope('report', '--port-url', url, '--to', 'v1.37-dev');
    expect(empty.code).toBe(3);
    expect(empty.stdout.split('\n')[0]).toMatch(/^Nothing seen: no client request was counted, so nothing was judged/);
    expect(empty.stdout).not.toContain('No findings');
    expect(empty.stderr).toBe(
      'peerscope: no request was seen, so nothing was judged (exit 3); give --allow-empty to accept an empty report\n',
    );
    const allowed = await peerscope('report', '--port-url', url, '--to', 'v1.37-dev', '--allow-empty', '-o', 'json');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ clients: 0, findings: [] });
  });

  it('--to an older release is a downgrade; --fail-on removed fails the gate with exit 4', async () => {
    const gvr = gainedIn137();
    const res = await fetch(`${url}/apis/${gvr.group}/${gvr.version}/${gvr.resource}`, { headers: { 'User-Agent': 'gate-client/1.0' } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const down = await peerscope('report', '--port-url', url, '--to', 'v1.36-dev', '--fail-on', 'removed');
    expect(down.stdout.split('\n')[0]).toMatch(/^Downgrade impact: v1\.37-dev \(.*\) → v1\.36-dev/);
    // Seen through the port, and in the audit log of the server that answered once the core has read it.
    expect(down.stdout).toMatch(/Removed by the downgrade: 404 after it \((1|2)\)/);
    expect(down.stdout).toContain('seen through the port');
    expect(down.stdout).toContain(`${gvr.group}/${gvr.version} ${gvr.resource}`);
    expect(down.stdout).toContain('404 after the downgrade');
    expect(down.stdout).not.toMatch(/upgrade/i);
    expect(down.code).toBe(4);
    expect(down.stderr).toMatch(/^peerscope: --fail-on: [12] finding\(s\) of removed \(exit 4\)\n$/);
    // Without --fail-on the report alone passes; a kind it does not have does not fail it.
    expect((await peerscope('report', '--port-url', url, '--to', 'v1.36-dev')).code).toBe(0);
    expect((await peerscope('report', '--port-url', url, '--to', 'v1.36-dev', '--fail-on', 'skewed,deprecated')).code).toBe(0);
    const same = await peerscope('report', '--port-url', url, '--to', 'v1.37-dev');
    expect(same.stdout.split('\n')[0]).toMatch(/^Upgrade impact: /);
  });
});
