// Audit logs read whole into a report, from real files in a temp directory written as kube-apiserver
// writes them, judged against the discovery of two bundled releases (v1.36-dev lacks what v1.37-dev
// added): counts per server, client and GVR, each request once, bad input named and never fatal.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auditReportSchema } from '../../contract/audit.js';
import { auditEventsOf, auditLog, PCR, PCR_PATH, PODS, PODS_PATH, SECRET_IN_BODY, SECRET_IN_EXTRA } from '../../test/audit-events.js';
import { catalogEntries, loadRelease } from '../releases/index.js';
import { parseAuditInputSpec, resolveAuditInputs } from './inputs.js';
import { judgeByServers, NO_JUDGEMENT } from './judge.js';
import { readAuditLogs } from './read-audit.js';
import { Registry } from 'prom-client';
import { AuditCounters } from './exposition.js';
import { formatAuditText } from './format.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-read-'));

function releaseServer(name: string, release: string) {
  const catalog = loadRelease(release);
  const gvrs = [...catalogEntries(catalog)].map((e) => ({ group: e.group, version: e.version, resource: e.resource.name }));
  return { name, gitVersion: catalog.gitVersion, gvrs };
}

/** apiserver-a runs v1.36-dev, apiserver-b v1.37-dev: certificates.k8s.io/v1 podcertificaterequests is b's alone. */
const judgement = judgeByServers(
  'servers',
  [releaseServer('apiserver-a', 'v1.36-dev'), releaseServer('apiserver-b', 'v1.37-dev')],
  new Date(),
);

const controller =
  'kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/0a1b2c3/system:serviceaccount:kube-system:generic-garbage-collector';

describe('readAuditLogs', () => {
  it('counts each request once, per server, client and GVR, and finds the false 404s', async () => {
    const a = join(dir, 'a.log');
    const b = join(dir, 'b.log');
    writeFileSync(
      a,
      auditLog([
        // The false 404s: a GVR only b serves, asked of a (its own Mixed Version Proxy off), by two clients.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404 },
        {
          verb: 'list',
          path: `${PCR_PATH}?limit=500`,
          ref: PCR,
          code: 404,
          user: 'system:serviceaccount:kube-system:generic-garbage-collector',
          userAgent: controller,
        },
        // The same GVR answered 200 by a: its own Mixed Version Proxy rerouted it to b.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 200 },
        // ... or failed to (peer proxy 503).
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 503 },
        // Served locally; a 404 of a served GVR is an object that does not exist.
        { verb: 'get', path: `${PODS_PATH}/web-0`, ref: { ...PODS, name: 'web-0' }, code: 404 },
        { verb: 'watch', path: `${PODS_PATH}?watch=true`, ref: PODS, code: 200, watch: true },
        // Nobody serves it: a real 404.
        {
          verb: 'list',
          path: '/apis/example.com/v1/widgets',
          ref: { group: 'example.com', version: 'v1', resource: 'widgets' },
          code: 404,
        },
        // Non-resource.
        { verb: 'get', path: '/readyz', code: 200, user: 'system:anonymous', userAgent: 'kube-probe/1.36' },
        // Refused before routing.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 403, user: 'intern' },
      ]),
    );
    writeFileSync(b, auditLog([{ verb: 'list', path: PCR_PATH, ref: PCR, code: 200 }]));
    const report = await readAuditLogs(
      [
        { server: 'apiserver-a', file: a },
        { server: 'apiserver-b', file: b },
      ],
      { judgement },
    );
    expect(auditReportSchema.parse(report)).toEqual(report);
    expect(report.complete).toBe(true);
    expect(report.problemCount).toBe(0);
    // 11 requests: 22 events plus the watch's ResponseStarted.
    expect(report.stages).toEqual({ RequestReceived: 11, ResponseStarted: 1, ResponseComplete: 11, Panic: 0 });
    expect(report.totals.requests).toBe(11);
    expect(report.totals.outcomes).toEqual({
      local: 3,
      'false-404': 3,
      rerouted: 1,
      unavailable: 1,
      notfound: 1,
      'non-resource': 1,
      rejected: 1,
      undetermined: 0,
    });
    expect(report.totals.codes).toEqual({ '200': 4, '403': 1, '404': 5, '503': 1 });
    const perServer = Object.fromEntries(report.perServer.map((s) => [s.server, s.outcomes]));
    expect(perServer['apiserver-a']?.['false-404']).toBe(3);
    expect(perServer['apiserver-b']).toMatchObject({ local: 1, 'false-404': 0 });
    expect(report.false404s).toEqual([
      expect.objectContaining({ user: 'kubernetes-admin', server: 'apiserver-a', gvr: PCR, servedBy: ['apiserver-b'], count: 2 }),
      expect.objectContaining({ userAgent: controller, server: 'apiserver-a', count: 1 }),
    ]);
    const pcr = report.perGvr.find((g) => g.gvr.resource === 'podcertificaterequests');
    expect(pcr).toMatchObject({ requests: 7, codes: { '200': 2, '403': 1, '404': 3, '503': 1 } });
    expect(report.perClient.map((c) => [c.user, c.requests])).toEqual([
      ['kubernetes-admin', 8],
      ['system:serviceaccount:kube-system:generic-garbage-collector', 1],
      ['system:anonymous', 1],
      ['intern', 1],
    ]);
  });

  it('reads rotated files oldest first, .gz ones too, and a final event seen twice counts once', async () => {
    const live = join(dir, 'rotated.log');
    const [received, complete] = auditEventsOf({ verb: 'get', path: PODS_PATH, ref: PODS, code: 200, auditID: 'spans-rotation' });
    // The request started in the rotated file and ended in the live one; the live file repeats the
    // last lines of the rotated one (a copy that overlapped the rotation).
    const older = auditLog([{ verb: 'list', path: PCR_PATH, ref: PCR, code: 404, auditID: 'repeated' }]);
    writeFileSync(`${live}.2.gz`, gzipSync(auditLog([{ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }])));
    writeFileSync(`${live}.1`, older + JSON.stringify(received) + '\n');
    writeFileSync(live, older + JSON.stringify(complete) + '\n');
    const inputs = [{ server: 'apiserver-a', file: live }];
    const report = await readAuditLogs(inputs, { judgement, rotated: true });
    expect(report.inputs[0]?.files).toEqual([`${live}.2.gz`, `${live}.1`, live]);
    expect(report.totals.requests).toBe(3);
    expect(report.duplicates).toBe(1);
    expect(report.totals.outcomes).toMatchObject({ local: 2, 'false-404': 1 });
    // Without --rotated only the live file is read.
    expect((await readAuditLogs(inputs, { judgement })).totals.requests).toBe(2);
  });

  it('names every bad line and a .gz cut short with file and line, and reads the rest', async () => {
    const file = join(dir, 'bad.log');
    const good = () => auditLog([{ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 }]);
    const other = { ...auditEventsOf({ verb: 'get', path: PODS_PATH, ref: PODS, code: 200 })[1], apiVersion: 'audit.k8s.io/v1beta1' };
    const noStage = { ...auditEventsOf({ verb: 'get', path: PODS_PATH, ref: PODS, code: 200 })[1], stage: 'Done' };
    writeFileSync(file, good() + 'this is not json\n' + JSON.stringify(other) + '\n\n' + JSON.stringify(noStage) + '\n[1,2]\n' + good());
    // A line cut in the middle, as the last line of a log copied while being written.
    appendFileSync(file, good().slice(0, 80));
    const cut = join(dir, 'cut.log.gz');
    const many = auditLog(Array.from({ length: 400 }, () => ({ verb: 'list', path: PODS_PATH, ref: PODS, code: 200 })));
    const gz = gzipSync(many);
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const missing = join(dir, 'missing.log');
    const report = await readAuditLogs(
      [
        { server: 'apiserver-a', file },
        { server: 'apiserver-b', file: cut },
        { server: 'apiserver-b', file: missing },
      ],
      { judgement },
    );
    expect(report.problems.slice(0, 5)).toEqual([
      `${file}:3: not JSON: invalid symbol at byte 0`,
      `${file}:4: not an audit.k8s.io/v1 Event (apiVersion "audit.k8s.io/v1beta1", kind "Event")`,
      expect.stringMatching(new RegExp(`^${file}:6: not a valid audit event: /stage: `)),
      `${file}:7: not a JSON object`,
      // Where and what kind of fault, never the text around it.
      `${file}:10: not JSON: unexpected end of string at byte 76`,
    ]);
    expect(report.problems[5]).toMatch(new RegExp(`^${cut}:\\d+: the \\.gz file is cut short or damaged`));
    expect(report.problems[6]).toBe(`${missing}: no such file`);
    expect(report.problemCount).toBe(7);
    expect(report.inputs.map((i) => [i.problems, i.error !== undefined])).toEqual([
      [5, false],
      [1, true],
      [1, true],
    ]);
    // The good lines around the bad ones, and the requests of the .gz before the cut, all counted.
    const fromCut = report.perServer.find((s) => s.server === 'apiserver-b')?.requests ?? 0;
    expect(fromCut).toBeGreaterThan(100);
    expect(fromCut).toBeLessThan(400);
    expect(report.perServer.find((s) => s.server === 'apiserver-a')?.requests).toBe(2);
  });

  it('never keeps request or response bodies, nor user.extra (policy level RequestResponse)', async () => {
    const file = join(dir, 'bodies.log');
    writeFileSync(
      file,
      auditLog([
        {
          verb: 'create',
          path: '/api/v1/namespaces/default/secrets',
          ref: { ...PODS, resource: 'secrets' },
          code: 201,
          level: 'RequestResponse',
        },
      ]),
    );
    expect(readFileSync(file, 'utf8')).toContain(SECRET_IN_BODY);
    const seen: unknown[] = [];
    const report = await readAuditLogs([{ server: 'apiserver-a', file }], { judgement, onRequest: (record) => seen.push(record) });
    expect(report.totals.requests).toBe(1);
    const kept = JSON.stringify({ report, seen });
    expect(kept).not.toContain(SECRET_IN_BODY);
    expect(kept).not.toContain(SECRET_IN_EXTRA);
    expect(kept).not.toContain('requestObject');
    expect(kept).not.toContain('responseObject');
  });

  it('names per client the deprecated APIs the servers marked (k8s.io/deprecated, k8s.io/removed-release), soonest removal first', async () => {
    const file = join(dir, 'deprecated.log');
    const flowschemas = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas' };
    const cronjobs = { group: 'batch', version: 'v1beta1', resource: 'cronjobs' };
    const legacy = { group: '', version: 'v1', resource: 'componentstatuses' };
    writeFileSync(
      file,
      auditLog([
        {
          verb: 'list',
          path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
          ref: flowschemas,
          code: 200,
          userAgent: 'helm/v3.11.0',
          deprecated: { removedRelease: '1.32' },
        },
        {
          verb: 'patch',
          path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas/x',
          ref: flowschemas,
          code: 200,
          userAgent: 'helm/v3.11.0',
          deprecated: { removedRelease: '1.32' },
        },
        {
          verb: 'list',
          path: '/apis/batch/v1beta1/cronjobs',
          ref: cronjobs,
          code: 200,
          userAgent: 'legacy-operator/0.9',
          user: 'system:serviceaccount:ops:legacy',
          deprecated: { removedRelease: '1.25' },
        },
        { verb: 'list', path: '/api/v1/componentstatuses', ref: legacy, code: 200, userAgent: 'kubectl/v1.36.3', deprecated: {} },
        // Not deprecated: not listed.
        { verb: 'list', path: PODS_PATH, ref: PODS, code: 200, userAgent: 'helm/v3.11.0' },
      ]),
    );
    const report = auditReportSchema.parse(await readAuditLogs([{ server: 'apiserver-a', file }], { judgement }));
    expect(
      report.deprecatedCalls?.map((d) => [
        d.userAgent,
        d.user,
        `${d.gvr.group}/${d.gvr.version}/${d.gvr.resource}`,
        d.removedRelease,
        d.count,
        d.servers,
      ]),
    ).toEqual([
      ['legacy-operator/0.9', 'system:serviceaccount:ops:legacy', 'batch/v1beta1/cronjobs', '1.25', 1, ['apiserver-a']],
      ['helm/v3.11.0', 'kubernetes-admin', 'flowcontrol.apiserver.k8s.io/v1beta3/flowschemas', '1.32', 2, ['apiserver-a']],
      ['kubectl/v1.36.3', 'kubernetes-admin', '/v1/componentstatuses', '', 1, ['apiserver-a']],
    ]);
    const text = formatAuditText(report, 20);
    expect(text).toMatch(/Deprecated APIs called .*: 3 client × API pair\(s\)/);
    expect(text).toMatch(/1 +batch\/v1beta1 cronjobs +1\.25 +apiserver-a +legacy-operator\/0\.9 \(system:serviceaccount:ops:legacy\)/);
    expect(text).toMatch(/1 +v1 componentstatuses +not planned/);

    // The same calls in /.peerscope/metrics, as serve counts a followed log.
    const counters = new AuditCounters();
    await readAuditLogs([{ server: 'apiserver-a', file }], { judgement, onRequest: (r, o) => counters.add(r, o) });
    const registry = new Registry();
    counters.register(registry);
    const exposition = await registry.metrics();
    expect(exposition).toContain(
      'peerscope_cluster_deprecated_requests_total{server="apiserver-a",server_id="apiserver-a",user_agent="helm/v3.11.0",user="kubernetes-admin",group="flowcontrol.apiserver.k8s.io",version="v1beta3",resource="flowschemas",removed_release="1.32"} 2',
    );
    expect(exposition.match(/^peerscope_cluster_deprecated_requests_total\{/gm)).toHaveLength(3);
  });

  it('judges an event by the release its server ran then, as its own requests name it, and says which', async () => {
    // apiserver-b runs v1.37-dev today; at 05:00 its own requests said v1.36.3, at 06:00 v1.37.2.
    const file = join(dir, 'upgraded-b.log');
    const own = (at: string, release: string) => ({
      verb: 'update',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-b',
      ref: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'kube-system', name: 'apiserver-b' },
      code: 200,
      user: 'system:apiserver',
      userAgent: `kube-apiserver/${release} (linux/amd64) kubernetes/0a1b2c3`,
      at,
    });
    const VAC = { group: 'storage.k8s.io', version: 'v1beta1', resource: 'volumeattributesclasses' };
    const VAC_PATH = '/apis/storage.k8s.io/v1beta1/volumeattributesclasses';
    writeFileSync(
      file,
      auditLog([
        own('2026-11-26T05:00:00.000000Z', 'v1.36.3'),
        // Then b ran 1.36: nobody served PodCertificateRequests (a real 404), and b served the beta v1.37 removed.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T05:10:00.000000Z' },
        { verb: 'list', path: VAC_PATH, ref: VAC, code: 200, at: '2026-11-26T05:11:00.000000Z' },
        own('2026-11-26T06:00:00.000000Z', 'v1.37.2'),
        // Now b runs 1.37, as today: its 404 for a GVR it serves is an object that does not exist.
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T06:10:00.000000Z' },
      ]),
    );
    const report = auditReportSchema.parse(await readAuditLogs([{ server: 'apiserver-b', file }], { judgement }));
    // The server's own requests count too: the one at 05:00 by 1.36, with the two after it.
    expect(report.judgedBy).toEqual({ timeline: 3, today: 2 });
    // By today's discovery alone the 05:10 404 would be local and the 05:11 list a reroute to a.
    expect(report.totals.outcomes).toMatchObject({ notfound: 1, local: 4, rerouted: 0, 'false-404': 0 });
    expect(formatAuditText(report, 20)).toContain(
      "3 request(s) came while their server ran another release (its own requests in the log name it): judged against that release (the catalog's) instead; 2 by today's discovery",
    );
  });

  it('says per false 404 whether it was judged by the release of the time or by today', async () => {
    // apiserver-a runs v1.36-dev today, but ran 1.37 before (rolled back): a 404 for PodCertificateRequests then was its own.
    const file = join(dir, 'rolled-back-a.log');
    const own = (at: string, release: string) => ({
      verb: 'get',
      path: '/api/v1/namespaces/kube-system',
      ref: { group: '', version: 'v1', resource: 'namespaces', name: 'kube-system' },
      code: 200,
      user: 'system:apiserver',
      userAgent: `kube-apiserver/${release} (linux/amd64) kubernetes/0a1b2c3`,
      at,
    });
    writeFileSync(
      file,
      auditLog([
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T04:00:00.000000Z' },
        own('2026-11-26T05:00:00.000000Z', 'v1.37.2'),
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T05:10:00.000000Z' },
        own('2026-11-26T06:00:00.000000Z', 'v1.36.3'),
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T06:10:00.000000Z' },
      ]),
    );
    const report = auditReportSchema.parse(await readAuditLogs([{ server: 'apiserver-a', file }], { judgement }));
    // 04:00: before its first own request, so by today (a false 404); 05:10: a served it then (an object
    // missing, local); 06:10: 1.36 as today (a false 404).
    expect(report.false404s?.map((f) => [f.server, f.count, f.judgedBy])).toEqual([['apiserver-a', 2, 'today']]);
    expect(report.judgedBy).toEqual({ timeline: 2, today: 3 });
  });

  it('a false 404 of a server before its upgrade: judged by its release then, said so per finding', async () => {
    // Today b and c run v1.37-dev; b's own requests say it ran 1.36 at 05:00, when it lacked PodCertificateRequests.
    const three = judgeByServers(
      'servers',
      [releaseServer('apiserver-a', 'v1.36-dev'), releaseServer('apiserver-b', 'v1.37-dev'), releaseServer('apiserver-c', 'v1.37-dev')],
      new Date(),
    );
    const file = join(dir, 'b-before-upgrade.log');
    writeFileSync(
      file,
      auditLog([
        {
          verb: 'get',
          path: '/api/v1/namespaces/kube-system',
          ref: { group: '', version: 'v1', resource: 'namespaces', name: 'kube-system' },
          code: 200,
          user: 'system:apiserver',
          userAgent: 'kube-apiserver/v1.36.3 (linux/amd64) kubernetes/0a1b2c3',
          at: '2026-11-26T05:00:00.000000Z',
        },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, at: '2026-11-26T05:01:00.000000Z' },
      ]),
    );
    const report = auditReportSchema.parse(await readAuditLogs([{ server: 'apiserver-b', file }], { judgement: three }));
    // By today's discovery b serves it: the 404 would be an object that does not exist.
    expect(report.false404s?.map((f) => [f.server, f.servedBy, f.count, f.judgedBy])).toEqual([
      ['apiserver-b', ['apiserver-c'], 1, 'timeline'],
    ]);
    const text = formatAuditText(report, 20);
    expect(text).toMatch(/COUNT +SERVER +GVR +SERVED BY +CLIENT +LAST +JUDGED BY\n/);
    expect(text).toMatch(/1 +apiserver-b +certificates\.k8s\.io\/v1 podcertificaterequests +apiserver-c +.* +its release then\n/);
  });

  it('without discovery to judge by, counts everything and judges nothing (null, never 0)', async () => {
    const file = join(dir, 'unjudged.log');
    writeFileSync(file, auditLog([{ verb: 'list', path: PCR_PATH, ref: PCR, code: 404 }]));
    const report = await readAuditLogs([{ server: 'cp-1', file }], { judgement: NO_JUDGEMENT });
    expect(report.judgedAgainst).toEqual({ kind: 'none', servers: [] });
    expect(report.totals).toEqual({ requests: 1, outcomes: null, unjudged: 1, codes: { '404': 1 } });
    expect(report.false404s).toBeNull();
  });
});

describe('resolveAuditInputs', () => {
  const names = ['apiserver-1', 'apiserver-10', 'apiserver-2'].map((name) => ({ name }));
  const resolve = (...specs: string[]) => resolveAuditInputs(specs.map(parseAuditInputSpec), names);

  it('takes SERVER=FILE as given, and matches a bare FILE to the one server its file or folder name holds as a word', () => {
    expect(resolveAuditInputs([parseAuditInputSpec('cp=/var/log/audit.log')], [])).toEqual([{ server: 'cp', file: '/var/log/audit.log' }]);
    expect(resolve('/logs/apiserver-10/audit.log', '/logs/apiserver-1-audit.log.gz', 'apiserver-2=-')).toEqual([
      { server: 'apiserver-10', file: '/logs/apiserver-10/audit.log' },
      { server: 'apiserver-1', file: '/logs/apiserver-1-audit.log.gz' },
      { server: 'apiserver-2', file: '-' },
    ]);
    // A path with "=" in it is a file: a server name holds no "/".
    expect(parseAuditInputSpec('./logs/x=y.log')).toEqual({ file: './logs/x=y.log' });
  });

  it('SERVER= takes the host name the screens print or the lease name; a name of no server is an error listing them', () => {
    const sim = [
      { name: 'apiserver-sim-1', hostname: 'sim-1' },
      { name: 'apiserver-sim-2', hostname: 'sim-2' },
    ];
    const specs = ['sim-1=a.log', 'apiserver-sim-2=b.log'].map(parseAuditInputSpec);
    expect(resolveAuditInputs(specs, sim)).toEqual([
      { server: 'apiserver-sim-1', file: 'a.log' },
      { server: 'apiserver-sim-2', file: 'b.log' },
    ]);
    expect(resolveAuditInputs([parseAuditInputSpec('/logs/sim-2/audit.log')], sim)).toEqual([
      { server: 'apiserver-sim-2', file: '/logs/sim-2/audit.log' },
    ]);
    expect(() => resolveAuditInputs([parseAuditInputSpec('sim-3=c.log')], sim)).toThrow(
      '--audit-log sim-3=c.log: no server is named "sim-3" (servers: sim-1 (apiserver-sim-1), sim-2 (apiserver-sim-2))',
    );
  });

  it('says what to do when a bare FILE names no server, several, or is standard input', () => {
    expect(() => resolve('/var/log/kubernetes/audit.log')).toThrow(
      '--audit-log /var/log/kubernetes/audit.log: its file name names no server (servers: apiserver-1, apiserver-10, apiserver-2); give it as SERVER=/var/log/kubernetes/audit.log',
    );
    expect(() => resolve('/logs/apiserver-10x.log')).toThrow('names no server');
    expect(() => resolve('/logs/apiserver-1/apiserver-2.log')).toThrow('its file name names several servers: apiserver-1, apiserver-2');
    expect(() => resolve('-')).toThrow('give it as SERVER=-');
  });
});
