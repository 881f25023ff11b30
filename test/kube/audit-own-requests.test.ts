// What a real kube-apiserver's own requests look like in its audit log, and what Peerscope makes of
// them: two real servers of two releases, each with an audit log (policy level Metadata), bound to an
// address of their own. A server's loopback client (user system:apiserver) comes from an address of
// the machine, renews the server's own identity lease and carries the user agent
// kube-apiserver/<its release>. So `peerscope audit` matches logs with neutral names to their servers
// (by the lease: the servers here share one machine, and their own requests its first address), and
// reads each server's release at each moment from the log itself (the timeline: the same minor release
// as today's, so every event is judged by today's discovery). A client calls the deprecated APIs the
// servers warn about: the report names them per client with the removal release (audit annotations
// k8s.io/deprecated, k8s.io/removed-release).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditReportSchema } from '../../proxy-core/contract/audit.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { peerscope } from './peerscope-cli.js';
import { waitFor } from './processes.js';
import { servedGvrs } from './served-gvrs.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`;
const CALLER = 'legacy-inventory/v0.1';

describe.skipIf(skipKube())("real servers' own requests in their audit logs", () => {
  let cp: ControlPlane;
  let dir: string;
  const logs = new Map<string, string>();
  /** GVR keys the older server warned were deprecated, as the caller saw them. */
  const warned = new Set<string>();
  let names: Map<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-audit-own-'));
    const policyFile = join(dir, 'audit-policy.yaml');
    writeFileSync(policyFile, POLICY);
    for (const host of ['kube-old', 'kube-new']) logs.set(host, join(dir, `${host}.log`));
    const audit = (host: string) => ({ policyFile, logFile: logs.get(host)! });
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: kubeBinaries!.older, mvp: 'no-peer-ca', runtimeConfig: 'api/beta=true', audit: audit('kube-old') },
        { host: 'kube-new', release: kubeBinaries!.newer, mvp: 'no-peer-ca', runtimeConfig: 'api/beta=true', audit: audit('kube-new') },
      ],
    });
    names = await cp.leaseNames();
    // Every listable API of the older server, once: the deprecated ones answer with a warning.
    const served = [...(await servedGvrs(cp, 'kube-old')).values()].filter((g) => g.verbs.includes('list') && !g.resource.includes('/'));
    for (const g of served) {
      const res = await cp.call('kube-old', g.path, { headers: { 'user-agent': CALLER } });
      if (/ is deprecated/.test([res.headers.warning ?? []].flat().join('\n'))) warned.add(g.key);
    }
    console.log(`the older server warned these APIs are deprecated: ${[...warned].join(', ') || 'none'}`);
    await waitFor(
      `the caller's ${served.length} requests in the older server's audit log`,
      async () => {
        const done = readFileSync(logs.get('kube-old')!, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"ResponseComplete"') && l.includes(`"userAgent":"${CALLER}"`));
        return done.length >= served.length ? true : undefined;
      },
      30_000,
    );
  });

  afterAll(async () => {
    await cp?.close();
    if (dir && !process.env.PEERSCOPE_KUBE_KEEP) rmSync(dir, { recursive: true, force: true });
  });

  it("a server's own requests: user system:apiserver, its release in the user agent, renewing its own identity lease", () => {
    const ips = new Set(cp.servers.map((s) => s.ip));
    for (const host of ['kube-old', 'kube-new']) {
      const own = readFileSync(logs.get(host)!, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"username":"system:apiserver"'))
        .map(
          (l) =>
            JSON.parse(l) as {
              verb: string;
              sourceIPs?: string[];
              userAgent?: string;
              objectRef?: { resource?: string; namespace?: string; name?: string };
            },
        );
      expect(own.length, host).toBeGreaterThan(0);
      const server = cp.server(host);
      for (const e of own) expect(e.userAgent, host).toMatch(/^kube-apiserver\/v\d+\.\d+\.\d+/);
      expect(
        own.some((e) => e.userAgent?.startsWith(`kube-apiserver/${server.spec.release}`)),
        `${host} runs ${server.spec.release}`,
      ).toBe(true);
      // The identity leases it renews (not deletes): its own only.
      const renewed = new Set(
        own
          .filter(
            (e) =>
              ['update', 'patch', 'create'].includes(e.verb) &&
              e.objectRef?.resource === 'leases' &&
              e.objectRef.namespace === 'kube-system',
          )
          .map((e) => e.objectRef!.name)
          .filter((n): n is string => typeof n === 'string' && n !== ''),
      );
      const leaseNames = new Set(names.values());
      expect(
        [...renewed].filter((n) => leaseNames.has(n!)),
        host,
      ).toEqual([names.get(host)]);
      // Its own requests come from an address of the machine — with every server on one machine (this
      // suite's network namespace), from the first one, not necessarily the server's own: an address
      // alone cannot tell servers on one machine apart.
      const from = new Set(own.map((e) => e.sourceIPs?.[0]));
      for (const ip of from) expect(ips.has(ip!), `${host}: ${ip}`).toBe(true);
      console.log(
        `${host} (${server.ip}, ${server.spec.release}): own requests from ${[...from].join(', ')}, renewing lease ${[...renewed].join(', ')}`,
      );
    }
  });

  it('peerscope audit matches logs with neutral names to their servers by their own requests, and names the deprecated APIs per client', async () => {
    // Copies named after nothing: only their events can say whose they are.
    const neutral = ['first.log', 'second.log'].map((n) => join(dir, n));
    copyFileSync(logs.get('kube-new')!, neutral[0]!);
    copyFileSync(logs.get('kube-old')!, neutral[1]!);
    const run = await peerscope([
      'audit',
      ...neutral.flatMap((f) => ['--audit-log', f]),
      '--kubeconfig',
      cp.kubeconfig('kube-old'),
      '--output',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = auditReportSchema.parse(JSON.parse(run.stdout));
    expect(report.inputs.map((i) => [i.file, i.server])).toEqual([
      [neutral[0], names.get('kube-new')],
      [neutral[1], names.get('kube-old')],
    ]);
    // Each server ran today's release all along (its own requests say so): judged by today's discovery.
    expect(report.judgedBy?.timeline).toBe(0);
    expect(report.judgedBy?.today).toBe(report.totals.requests);
    // The caller's deprecated calls, exactly those the server warned about, with the removal release it named.
    const mine = (report.deprecatedCalls ?? []).filter((d) => d.userAgent === CALLER);
    expect(new Set(mine.map((d) => `${d.gvr.group}/${d.gvr.version}/${d.gvr.resource}`))).toEqual(warned);
    for (const d of mine) {
      expect(d.servers).toEqual([names.get('kube-old')]);
      expect(d.count).toBe(1);
      expect(d.removedRelease).toMatch(/^(\d+\.\d+)?$/);
    }
    console.log(
      `deprecated calls of ${CALLER}: ${mine.map((d) => `${d.gvr.group}/${d.gvr.version} ${d.gvr.resource} (${d.removedRelease ? `removed in ${d.removedRelease}` : 'no removal planned'})`).join(', ')}`,
    );

    // A file whose server's own requests and name disagree is refused, naming both.
    const misnamed = join(dir, `${names.get('kube-new')}.log`);
    copyFileSync(logs.get('kube-old')!, misnamed);
    const refused = await peerscope(['audit', '--audit-log', misnamed, '--kubeconfig', cp.kubeconfig('kube-old')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `its server renews the identity lease of ${names.get('kube-old')}; its file name names ${names.get('kube-new')}`,
    );
  });
});
