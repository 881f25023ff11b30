// The simulated servers' audit logs as the core reads them: a request for a deprecated API carries
// the annotations a real server writes (from the release catalog), and each server's own lease writes
// show what the core learns a server's release from and matches a bare log file to its server by.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchAuditInputs, ReleaseTimeline } from '../../engine/audit/index.js';
import type { AuditRecord } from '../../engine/audit/event.js';
import { parseAuditLine } from '../../engine/audit/parse-line.js';
import { loadRelease } from '../../engine/releases/index.js';
import { callServer } from '../../test/sim-client.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../index.js';
import { deprecationsOf } from './deprecations.js';

const DEPRECATED = '/apis/storage.k8s.io/v1beta1/volumeattributesclasses';
const CURRENT = '/apis/storage.k8s.io/v1/volumeattributesclasses';
const NOT_SERVED = '/apis/certificates.k8s.io/v1/podcertificaterequests';
const CALLER = { 'user-agent': 'audit-log-test/1.0' };

/** Every line of a server's log as the core parses it; a line it cannot use fails the test. */
function recordsOf(dir: string, server: string): AuditRecord[] {
  return readFileSync(simAuditLogFile(dir, server), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const parsed = parseAuditLine(server, l);
      if (parsed.kind !== 'record') throw new Error(`${server}: ${parsed.kind === 'problem' ? parsed.why : 'blank'}: ${l}`);
      return parsed.record;
    });
}

const own = (records: AuditRecord[]) => records.filter((r) => r.user === 'system:apiserver');

describe('the simulated servers’ audit logs', () => {
  let dir: string;
  let sim: SimCluster;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-audit-log-'));
    // A 4 s lease is renewed every second: three renewals come soon (a real 3600 s one: every 10 s).
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['a', 'b'],
      auditLogDir: dir,
      leaseDurationSeconds: 4,
    });
    const [a, b] = sim.servers.map((s) => s.info().url) as [string, string];
    expect((await callServer(sim, a, DEPRECATED, { headers: CALLER })).status).toBe(200);
    expect((await callServer(sim, a, CURRENT, { headers: CALLER })).status).toBe(200);
    expect((await callServer(sim, a, NOT_SERVED, { headers: CALLER })).status).toBe(404);
    // b (v1.37-dev) no longer serves the deprecated version: a 404, which a real server does not mark.
    expect((await callServer(sim, b, DEPRECATED, { headers: CALLER })).status).toBe(404);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const ready = ['a', 'b'].every((s) => {
        const records = recordsOf(dir, s);
        return own(records).length >= 3 && records.filter((r) => r.userAgent === CALLER['user-agent']).length >= (s === 'a' ? 3 : 1);
      });
      if (ready) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the catalog’s deprecations: beta and GA versions a later release drops while serving the resource on, with that release', () => {
    expect(Object.fromEntries(deprecationsOf(loadRelease('v1.36-dev')))).toEqual({
      'networking.k8s.io/v1beta1/ipaddresses': '1.37',
      'networking.k8s.io/v1beta1/servicecidrs': '1.37',
      'storage.k8s.io/v1beta1/volumeattributesclasses': '1.37',
    });
    // The newest release has nothing later to be removed by.
    expect(deprecationsOf(loadRelease('v1.37-dev')).size).toBe(0);
  });

  it('marks a request for a deprecated API the server serves (k8s.io/deprecated, k8s.io/removed-release), no other', () => {
    const mine = (server: string) =>
      recordsOf(dir, server)
        .filter((r) => r.userAgent === CALLER['user-agent'])
        .map((r) => [r.path, r.code, r.deprecated ?? null]);
    expect(mine('a')).toEqual([
      [DEPRECATED, 200, { removedRelease: '1.37' }],
      [CURRENT, 200, null],
      [NOT_SERVED, 404, null],
    ]);
    expect(mine('b')).toEqual([[DEPRECATED, 404, null]]);
    const line = readFileSync(simAuditLogFile(dir, 'a'), 'utf8')
      .split('\n')
      .find((l) => l.includes(`"requestURI":"${DEPRECATED}"`));
    expect(JSON.parse(line!).annotations).toEqual({ 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.37' });
  });

  it('logs the server’s own lease writes: user system:apiserver, its release in the user agent, from its address', () => {
    for (const [name, gitVersion] of [
      ['a', 'v1.36.0-dev'],
      ['b', 'v1.37.0-dev'],
    ] as const) {
      const writes = own(recordsOf(dir, name));
      expect(writes.length, name).toBeGreaterThanOrEqual(3);
      expect(writes.map((w) => w.verb)).toEqual(['create', ...writes.slice(1).map(() => 'update')]);
      for (const w of writes) {
        expect(w.userAgent).toBe(`kube-apiserver/${gitVersion} (linux/amd64) kubernetes/0000000`);
        expect(w.sourceIP).toBe('127.0.0.1');
        expect(w.code).toBe(w.verb === 'create' ? 201 : 200);
        expect(w.target).toMatchObject({
          group: 'coordination.k8s.io',
          version: 'v1',
          resource: 'leases',
          namespace: 'kube-system',
          name: `apiserver-${name}`,
        });
      }
      // What the core's timeline makes of them: the release the server ran.
      const timeline = new ReleaseTimeline();
      for (const w of writes) timeline.noteRecord(w);
      expect(timeline.releaseAt(name, Date.now())).toBe(gitVersion);
    }
  });

  it('a bare log file is matched to its server by the lease its server renews, or among servers sharing an address by its name', async () => {
    const files = ['b', 'a'].map((n) => ({ file: simAuditLogFile(dir, n) }));
    const url = (n: string) => sim.server(n).info().url;
    // Named as a kubeconfig names them: by their identity leases.
    expect(
      await matchAuditInputs(files, [
        { name: 'apiserver-a', url: url('a') },
        { name: 'apiserver-b', url: url('b') },
      ]),
    ).toEqual([
      { server: 'apiserver-b', file: files[0]!.file },
      { server: 'apiserver-a', file: files[1]!.file },
    ]);
    // Named by hand (--server a=URL): both share 127.0.0.1, so the file names decide.
    expect(
      await matchAuditInputs(files, [
        { name: 'a', url: url('a') },
        { name: 'b', url: url('b') },
      ]),
    ).toEqual([
      { server: 'b', file: files[0]!.file },
      { server: 'a', file: files[1]!.file },
    ]);
  });
});
