// `peerscope report --snapshot FILE` from a snapshot saved by a core that followed the servers' audit
// logs: the same findings the live report had (the port's clients and the cluster's, each naming its
// source), not the port's alone. The cluster's clients are real requests sent straight to simulated
// servers, whose audit logs mark the deprecated API as a real server's do.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { impactReportSchema, type ImpactFinding, type ImpactReport } from '../contract/impact.js';
import { repoRoot } from '../../test/fixtures.js';
import { createCoreService, type CoreService } from '../hosts/service/service.js';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { readSnapshotFile, writeSnapshotFile } from '../engine/snapshot/index.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../sim/index.js';
import { callServer } from './sim-client.js';

const LEGACY = 'legacy-inventory/v0.1';
const CERTS = 'cert-watcher/v2.0';
const PORT_CLIENT = 'port-kubectl/v1.36.0';
const DEPRECATED = '/apis/storage.k8s.io/v1beta1/volumeattributesclasses';
const PCR = '/apis/certificates.k8s.io/v1/podcertificaterequests';

function report(args: string[]): Promise<ImpactReport> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['bin/peerscope', 'report', ...args, '--output', 'json'],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`report ${args.join(' ')}: ${err.message}\n${stderr}`))
          : resolve(impactReportSchema.parse(JSON.parse(stdout))),
    ),
  );
}

const summary = (findings: readonly ImpactFinding[]) =>
  findings.map((f) => [f.source, f.client.userAgent, `${f.group}/${f.version}/${f.resource}`, f.impact]).sort();

describe('report --snapshot with the cluster source', () => {
  let dir: string;
  let sim: SimCluster;
  let core: Core;
  let service: CoreService;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'report-snapshot-cluster-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'], auditLogDir: dir });
    core = createCore({
      servers: sim.serverConfigs(),
      listen: { port: 0 },
      auditLogs: sim.servers.map((s) => ({ server: s.name, file: simAuditLogFile(dir, s.name) })),
    });
    const address = await core.start();
    service = createCoreService(core, { batchMs: 20 });
    // Straight to the older server, as a load balancer would send them: a deprecated API the target
    // release removes, and a GVR only the newer server serves (false 404s).
    const a = sim.server('a').info().url;
    for (let i = 0; i < 2; i++) expect((await callServer(sim, a, DEPRECATED, { headers: { 'user-agent': LEGACY } })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await callServer(sim, a, PCR, { headers: { 'user-agent': CERTS } })).status).toBe(404);
    // And one client of the port.
    const viaPort = await fetch(`${address.url}${DEPRECATED}`, { headers: { 'user-agent': PORT_CLIENT } });
    expect(viaPort.status).toBe(200);
    expect(viaPort.headers.get('warning')).toBe(
      '299 - "storage.k8s.io/v1beta1 VolumeAttributesClass is deprecated, unavailable in v1.37+"',
    );
    await viaPort.text();
    const seen = async () =>
      (await service.getClusterEvents({})).events.filter((e) => e.userAgent === LEGACY || e.userAgent === CERTS).length;
    const deadline = Date.now() + 30_000;
    while ((await seen()) < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await seen()).toBe(5);
  }, 90_000);

  afterAll(async () => {
    service?.close();
    await core?.close(0);
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives the findings the live report had, the cluster’s clients among them, each with its source', async () => {
    const file = join(dir, 'snapshot.json');
    writeSnapshotFile(file, await service.takeSnapshot());
    const recorded = readSnapshotFile(file).impact!;
    expect(readSnapshotFile(file).cluster?.usage?.rows.length).toBeGreaterThan(0);

    const offline = await report(['--snapshot', file]);
    expect(offline.sources).toEqual(recorded.sources);
    expect(offline.sources).toEqual(['port', 'cluster-audit']);
    expect(offline.findings).toEqual(recorded.findings);
    expect(offline.clients).toBe(recorded.clients);

    const cluster = offline.findings.filter((f) => f.source === 'cluster-audit');
    const legacy = cluster.find((f) => f.client.userAgent === LEGACY);
    expect(legacy).toMatchObject({ group: 'storage.k8s.io', version: 'v1beta1', resource: 'volumeattributesclasses', impact: 'removed' });
    expect(legacy!.verbs).toEqual([expect.objectContaining({ verb: 'list', count: 2 })]);
    // The servers' own deprecation mark, as the report of the audit logs names it.
    expect(legacy!.evidence.warnings.join('\n')).toMatch(/deprecated \(audit annotation k8s\.io\/deprecated\); removed in 1\.37/);
    expect(legacy!.message).toMatch(
      /: not served by v1\.37-dev → 404 after the upgrade; the apiserver already warns "storage\.k8s\.io\/v1beta1 volumeattributesclasses is deprecated \(audit annotation k8s\.io\/deprecated\); removed in 1\.37/,
    );
    expect(cluster.find((f) => f.client.userAgent === CERTS)).toMatchObject({ resource: 'podcertificaterequests', impact: 'skewed' });
    const viaPort = offline.findings.find((f) => f.source === 'port' && f.client.userAgent === PORT_CLIENT);
    expect(viaPort).toMatchObject({ resource: 'volumeattributesclasses', impact: 'removed' });
    // The older server's own Warning header, relayed by the port and kept for the client it warned.
    expect(viaPort!.evidence.warnings).toEqual(['storage.k8s.io/v1beta1 VolumeAttributesClass is deprecated, unavailable in v1.37+']);
    console.log(
      `report --snapshot: ${offline.findings.length} finding(s): ${summary(offline.findings)
        .map((s) => s.join(' '))
        .join('; ')}`,
    );
  });

  it('a snapshot without the cluster usage (an earlier version) is reported from the cluster events it kept', async () => {
    const doc = await service.takeSnapshot();
    const { usage: _usage, ...cluster } = doc.cluster!;
    const file = join(dir, 'earlier.json');
    writeSnapshotFile(file, { ...doc, cluster });
    const offline = await report(['--snapshot', file]);
    expect(offline.sources).toEqual(['port', 'cluster-audit']);
    // Every event was kept here, so the same clients, APIs and impacts.
    expect(summary(offline.findings)).toEqual(summary(doc.impact!.findings));
  });
});
