// The cluster source end to end in-process: simulated servers write audit logs, the core follows them,
// and the core service pushes each judged request to subscribers beside the port's own routing events
// — false 404s included, nothing of a body, a query string, a credential or user.extra.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterBatch, CoreEvent, RoutingBatch } from '../contract/index.js';
import { createCoreService, type CoreService } from '../hosts/service/service.js';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { simAuditLogFile, startSimCluster, type SimCluster } from '../sim/index.js';
import { auditLog, PCR, PCR_PATH, SECRET_IN_BODY, SECRET_IN_EXTRA } from './audit-events.js';
import { callServer } from './sim-client.js';

const UA = 'cluster-source-check/1.0';
const SECRET_IN_QUERY = 'q-secret-5b9d';

describe('the cluster source', () => {
  let dir: string;
  let sim: SimCluster;
  let core: Core;
  let service: CoreService;
  const pushed: CoreEvent[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cluster-source-'));
    // a at v1.36-dev, b at v1.37-dev: PodCertificateRequests only b serves.
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['a', 'b'], auditLogDir: dir });
    core = createCore({
      servers: sim.serverConfigs(),
      listen: { port: 0 },
      auditLogs: sim.servers.map((s) => ({ server: s.name, file: simAuditLogFile(dir, s.name) })),
    });
    await core.start();
    service = createCoreService(core, { batchMs: 20 });
    service.subscribe((e) => pushed.push(e));
  }, 60_000);

  afterAll(async () => {
    service?.close();
    await core?.close(0);
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const clusterBatches = () => pushed.filter((e): e is ClusterBatch => e.type === 'cluster');
  const clusterEvents = () => clusterBatches().flatMap((b) => b.events);
  const mine = () => clusterEvents().filter((e) => e.userAgent === UA);

  it('pushes what each server answered, straight to it, judged: false 404s as an outcome of their own', async () => {
    const [a, b] = sim.servers.map((s) => s.info().url) as [string, string];
    const headers = { 'user-agent': UA };
    for (let i = 0; i < 2; i++) expect((await callServer(sim, a, PCR_PATH, { headers })).status).toBe(404);
    expect((await callServer(sim, b, PCR_PATH, { headers })).status).toBe(200);
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBe(3);

    const falseAtA = mine().filter((e) => e.outcome === 'false-404');
    expect(falseAtA).toHaveLength(2);
    expect(falseAtA[0]).toMatchObject({ server: 'a', user: 'sim-admin', verb: 'list', path: PCR_PATH, ...PCR, code: 404 });
    expect(mine().find((e) => e.server === 'b')).toMatchObject({ outcome: 'local', code: 200 });
    // The batches' counts are exact, and sequence numbers rise.
    const counted = clusterBatches().reduce((n, batch) => n + batch.counts['false-404'], 0);
    expect(counted).toBe(2);
    const seqs = clusterEvents().map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));

    // The same through the calls: recent events, the overview's summary, per-minute rates per server.
    const page = await service.getClusterEvents({ limit: 100 });
    expect(page.events.filter((e) => e.userAgent === UA)).toHaveLength(3);
    expect(page.lastSeq).toBe(core.cluster!.lastSeq);
    const overview = await service.getOverview();
    expect(overview.cluster).toMatchObject({ servers: ['a', 'b'], lastSeq: page.lastSeq });
    expect(overview.cluster!.totals['false-404']).toBe(2);
    const history = await service.getHealthHistory();
    const minutesOfA = history.servers.find((s) => s.name === 'a')!.cluster!;
    expect(minutesOfA.reduce((n, m) => n + m.false404s, 0)).toBe(2);
    expect(minutesOfA.reduce((n, m) => n + m.requests, 0)).toBeGreaterThanOrEqual(2);
    // Per server and GVR over the last minute: the GVR matrix's cells.
    const rates = await service.getClusterGvrRates();
    expect(rates.seconds).toBeGreaterThan(0);
    expect(rates.seconds).toBeLessThanOrEqual(60);
    expect(rates.cells).toEqual(
      expect.arrayContaining([
        { server: 'a', ...PCR, requests: 2, false404s: 2 },
        { server: 'b', ...PCR, requests: 1, false404s: 0 },
      ]),
    );
  });

  it("keeps the port's routing events and counters to the port's own requests", async () => {
    const before = core.telemetry.totals();
    const res = await request(`${core.address()!.url}${PCR_PATH}`, { headers: { 'user-agent': UA } });
    await res.body.text();
    await expect.poll(() => pushed.filter((e): e is RoutingBatch => e.type === 'routing').flatMap((b) => b.events).length).toBe(1);
    const routed = pushed.filter((e): e is RoutingBatch => e.type === 'routing').flatMap((b) => b.events);
    expect(routed[0]).toMatchObject({ path: PCR_PATH, userAgent: UA });
    const after = core.telemetry.totals();
    const sum = (t: Record<string, number>) => Object.values(t).reduce((x, y) => x + y, 0);
    expect(sum(after) - sum(before)).toBe(1);
    // The request the port forwarded is also what a server answered: it shows in the cluster source too.
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBe(4);
  });

  it('carries no body, query string, credential or user.extra of an event logged at RequestResponse', async () => {
    appendFileSync(
      simAuditLogFile(dir, 'a'),
      auditLog([
        {
          verb: 'get',
          path: `/api/v1/namespaces/default/secrets/db?token=${SECRET_IN_QUERY}`,
          ref: { group: '', version: 'v1', resource: 'secrets', namespace: 'default', name: 'db' },
          code: 200,
          userAgent: UA,
          level: 'RequestResponse',
          at: new Date().toISOString().replace('Z', '000Z'),
        },
      ]),
    );
    await expect.poll(() => mine().filter((e) => e.resource === 'secrets').length, { timeout: 10_000 }).toBe(1);
    const text = JSON.stringify([...pushed, await service.getClusterEvents({})]);
    for (const secret of [SECRET_IN_BODY, SECRET_IN_EXTRA, SECRET_IN_QUERY, sim.token!]) expect(text).not.toContain(secret);
    expect(mine().find((e) => e.resource === 'secrets')).toMatchObject({ path: '/api/v1/namespaces/default/secrets/db', code: 200 });
  });
});
