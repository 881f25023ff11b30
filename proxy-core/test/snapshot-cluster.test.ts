// Snapshots carry the cluster source: simulated servers write audit logs, the core follows them (a
// log file) and receives one server's events over its audit webhook (real HTTPS posts), and a snapshot
// taken then holds what each server answered — every event saying which source it came from, the
// deprecated APIs per client, per-minute and per-GVR counts — written to a file and read back whole.
// A snapshot of an earlier version (no cluster field) still reads; a broken cluster field is named.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSummarySchema, routingSnapshotSchema } from '../contract/index.js';
import { WebhookSenders } from '../engine/audit/webhook/senders.js';
import { createCoreService, type CoreService } from '../hosts/service/service.js';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { readSnapshotFile, readSnapshotText, writeSnapshotFile } from '../engine/snapshot/index.js';
import { createCertificateAuthority, issueServerCertificate } from '../engine/tls/certs.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../sim/index.js';
import { auditEventsOf, auditLog, PCR, PCR_PATH } from './audit-events.js';

const UA = 'snapshot-cluster-check/1.0';
const HELM = 'helm/v3.11.0';
const FLOWSCHEMAS = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas' };
const now = () => new Date().toISOString().replace('Z', '000Z');

describe('snapshots carry the cluster source', () => {
  let dir: string;
  let sim: SimCluster;
  let core: Core;
  let service: CoreService;
  let ca: string;
  const token = 'webhook-token-of-b-0123456789';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'snapshot-cluster-'));
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'], auditLogDir: dir });
    const authority = await createCertificateAuthority('snapshot-cluster-webhook-ca');
    const serving = await issueServerCertificate(authority, { commonName: 'peerscope-audit-webhook', hosts: ['127.0.0.1'] });
    ca = authority.cert;
    const tokenFile = join(dir, 'b.token');
    writeFileSync(tokenFile, token);
    core = createCore({
      servers: sim.serverConfigs(),
      listen: { port: 0 },
      // a's log is followed; b posts to the webhook.
      auditLogs: [{ server: 'a', file: simAuditLogFile(dir, 'a') }],
      auditWebhook: {
        host: '127.0.0.1',
        port: 0,
        cert: serving.cert,
        key: serving.key,
        senders: new WebhookSenders([{ server: 'b', file: tokenFile }]),
      },
    });
    await core.start();
    service = createCoreService(core, { batchMs: 20 });
  }, 60_000);

  afterAll(async () => {
    service?.close();
    await core?.close(0);
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds what the servers answered, from the log and the webhook, each event naming its source', async () => {
    // a: two false 404s and a deprecated API a client will lose in 1.32, from its log.
    appendFileSync(
      simAuditLogFile(dir, 'a'),
      auditLog([
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, userAgent: UA, at: now() },
        { verb: 'list', path: PCR_PATH, ref: PCR, code: 404, userAgent: UA, at: now() },
        {
          verb: 'list',
          path: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
          ref: FLOWSCHEMAS,
          code: 200,
          userAgent: HELM,
          at: now(),
          deprecated: { removedRelease: '1.32' },
        },
      ]),
    );
    // b: one request posted as kube-apiserver's webhook backend posts it (an EventList over HTTPS, its bearer token).
    const items = auditEventsOf({ verb: 'list', path: PCR_PATH, ref: PCR, code: 200, userAgent: UA, at: now() }).map(
      ({ apiVersion: _a, kind: _k, ...item }) => item,
    );
    const agent = new Agent({ connect: { ca } });
    try {
      const res = await request(`${core.auditWebhookUrl()!}/`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items }),
      });
      expect(res.statusCode, await res.body.text()).toBe(200);
    } finally {
      await agent.close();
    }
    const mine = async () => (await service.getClusterEvents({})).events.filter((e) => e.userAgent === UA || e.userAgent === HELM);
    await expect.poll(async () => (await mine()).length, { timeout: 15_000 }).toBe(4);

    // The live summary: per source, the deprecated calls, and the follow's progress (caught up).
    const summary = clusterSummarySchema.parse((await service.getOverview()).cluster);
    expect(summary.bySource!['audit-webhook']).toBeGreaterThanOrEqual(1);
    expect(summary.bySource!['audit-log']).toBeGreaterThanOrEqual(3);
    expect(summary.deprecatedCalls).toEqual([
      expect.objectContaining({ userAgent: HELM, gvr: FLOWSCHEMAS, removedRelease: '1.32', servers: ['a'], count: 1 }),
    ]);
    await expect.poll(async () => (await service.getOverview()).cluster?.read?.state, { timeout: 10_000 }).toBe('following');

    // Saved and read back whole: the same cluster source, offline.
    const file = join(dir, 'with-cluster.json');
    writeSnapshotFile(file, await service.takeSnapshot());
    const snapshot = readSnapshotFile(file);
    const cluster = snapshot.cluster!;
    expect(cluster.servers).toEqual(['a', 'b']);
    expect(cluster.sources).toEqual(['audit-log', 'audit-webhook']);
    expect(cluster.bySource).toEqual(summary.bySource);
    const saved = cluster.events.filter((e) => e.userAgent === UA || e.userAgent === HELM);
    expect(saved.map((e) => [e.server, e.via, e.outcome, e.code])).toEqual(
      expect.arrayContaining([
        ['a', 'audit-log', 'false-404', 404],
        ['a', 'audit-log', 'false-404', 404],
        // flowschemas v1beta3 is served by neither simulated release: a success for it is undetermined.
        ['a', 'audit-log', 'undetermined', 200],
        ['b', 'audit-webhook', 'local', 200],
      ]),
    );
    expect(saved.find((e) => e.userAgent === HELM)?.deprecated).toEqual({ removedRelease: '1.32' });
    expect(cluster.totals['false-404']).toBeGreaterThanOrEqual(2);
    expect(cluster.minutes.find((m) => m.server === 'a')!.minutes.reduce((n, m) => n + m.false404s, 0)).toBeGreaterThanOrEqual(2);
    expect(cluster.gvrRates.cells).toEqual(expect.arrayContaining([expect.objectContaining({ server: 'a', ...PCR, false404s: 2 })]));
    expect(cluster.deprecatedCalls).toEqual(summary.deprecatedCalls);
    // No credential of the webhook's sender in the file.
    expect(readFileSync(file, 'utf8')).not.toContain(token);
  });

  it('reads a snapshot without the cluster field (an earlier version), and names a broken cluster field', async () => {
    const doc = routingSnapshotSchema.parse(await service.takeSnapshot());
    const { cluster: _cluster, ...earlier } = doc;
    const old = readSnapshotText(JSON.stringify(earlier), 'earlier.json');
    expect(old.ok).toBe(true);
    expect(old.ok && old.snapshot.cluster).toBeUndefined();

    const broken = structuredClone(doc);
    (broken.cluster!.events[0] as { outcome: string }).outcome = 'teleported';
    const result = readSnapshotText(JSON.stringify(broken), 'broken.json');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ file: 'broken.json', reason: 'invalid', pointer: '/cluster/events/0/outcome' });
    expect(!result.ok && result.error.message).toMatch(/^broken\.json at \/cluster\/events\/0\/outcome: /);
  });
});
