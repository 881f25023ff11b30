import { describe, expect, it } from 'vitest';
import {
  clusterEventsPageSchema,
  clusterGvrRatesSchema,
  clusterOutcomes,
  coreClientMethods,
  type ClusterTotals,
  discoveryViewsSchema,
  eventsPageSchema,
  healthHistorySchema,
  overviewSchema,
  routeTableViewSchema,
} from '../../../proxy-core/contract/index.js';
import { FakeCoreClient } from '../../test/fake-client.js';
import { sampleSnapshot, TAKEN_AT } from '../../test/snapshot.js';
import { createSnapshotClient, OfflineError, splitGvrKey } from './snapshot-client.js';

describe('the read-only CoreClient of a snapshot', () => {
  const snapshot = sampleSnapshot();
  const live = new FakeCoreClient();
  const client = createSnapshotClient(snapshot, { label: 'before.json', live });

  it('answers every view with the contract’s shapes, from the snapshot alone', async () => {
    const overview = overviewSchema.parse(await client.getOverview());
    expect(overview.listen).toBeNull();
    expect(overview.sim).toBeUndefined();
    expect(overview).toMatchObject({ policy: 'pin:sim-2', discoveryMode: 'nopeer', lastSeq: 40 });
    expect(overview.totals).toMatchObject({ local: 30, rerouted: 10, notfound: 3, 'discovery-own': 2, unavailable: 0 });
    expect(overview.servers.map((s) => [s.name, s.gitVersion, s.health, s.discovery.gvrCount, s.lastProbeAt])).toEqual([
      ['sim-1', 'v1.37.0-dev', 'ready', 4, Date.parse(TAKEN_AT)],
      ['sim-2', 'v1.36.0-dev', 'draining', 2, Date.parse(TAKEN_AT)],
    ]);
    const table = routeTableViewSchema.parse(await client.getRouteTable());
    expect(table.skewedCount).toBe(2);
    expect(table.rows[0]).toEqual({ group: '', version: 'v1', resource: 'pods', servers: ['sim-1', 'sim-2'] });
    expect(table.columns.map((c) => `${c.name}:${c.health}:${c.discovery}`)).toEqual(['sim-1:ready:ok', 'sim-2:draining:ok']);
    const history = healthHistorySchema.parse(await client.getHealthHistory());
    expect(history.servers[1]!.samples).toEqual([{ at: Date.parse(TAKEN_AT), health: 'draining', gitVersion: 'v1.36.0-dev' }]);
    expect(await client.takeSnapshot()).toBe(snapshot);
  });

  it('tells a snapshot taken with --faithful by its settings (and one without says nothing)', async () => {
    expect((await client.getOverview()).faithful).toBeUndefined();
    const faithful = sampleSnapshot();
    const taken = { ...faithful, settings: { ...faithful.settings, faithful: true } };
    expect(await createSnapshotClient(taken, { label: 'faithful.json', live }).getOverview()).toMatchObject({ faithful: true });
  });

  it('pages the recorded events like the core does', async () => {
    const page = eventsPageSchema.parse(await client.getEvents({ limit: 5 }));
    expect(page.events.map((e) => e.seq)).toEqual([36, 37, 38, 39, 40]);
    expect((await client.getEvents({ sinceSeq: 38 })).events.map((e) => e.seq)).toEqual([39, 40]);
    expect((await client.getEvents()).events).toHaveLength(40);
  });

  it('refuses everything that would change a cluster, saying why', async () => {
    for (const call of [
      () => client.setPolicy({ policy: 'random' }),
      () => client.setDiscoveryMode({ mode: 'peer-aggregated' }),
      () => client.startRollout(),
      () => client.pauseRollout(),
      () => client.setTrafficRate({ rps: 5 }),
      () => client.getDiscoveryViews(),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OfflineError);
      expect((err as Error).message).toMatch(/snapshot, viewed offline: .* only possible on the live cluster\. Return to live first\./);
    }
    expect(live.calls.filter((c) => c.startsWith('set') || c.endsWith('Rollout'))).toEqual([]);
  });

  it('gives the discovery views the snapshot recorded, compared as the core compares them', async () => {
    const merged = {
      handling: 'sim-1',
      gvrs: ['/v1/pods', 'apps/v1/deployments', 'certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'],
    };
    const recorded = createSnapshotClient(sampleSnapshot({ mergedDiscovery: merged }), { label: 'recorded.json' });
    const views = discoveryViewsSchema.parse(await recorded.getDiscoveryViews());
    expect(views.mode).toBe('nopeer');
    expect(views.merged).toEqual(merged);
    expect(views.servers.map((s) => [s.name, s.gitVersion, s.onlyInMerged, s.onlyInOwn])).toEqual([
      ['sim-1', 'v1.37.0-dev', [], []],
      ['sim-2', 'v1.36.0-dev', ['certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'], []],
    ]);
  });

  it('reads and compares snapshot files through the live core; pushes nothing', async () => {
    await client.readSnapshot({ text: JSON.stringify(snapshot), file: 'x.json' });
    await client.compareSnapshots({ before: snapshot, after: snapshot });
    expect(live.calls).toEqual(expect.arrayContaining(['readSnapshot:x.json', 'compareSnapshots']));
    const alone = createSnapshotClient(snapshot, { label: 'x' });
    await expect(alone.compareSnapshots({ before: snapshot, after: snapshot })).rejects.toThrow(OfflineError);
    let pushed = 0;
    client.subscribe(() => pushed++)();
    expect(pushed).toBe(0);
  });

  it('answers the cluster source as recorded (as a live core without one when the snapshot has none)', async () => {
    const at = Date.parse(TAKEN_AT);
    const event = (seq: number, server: string, outcome: 'false-404' | 'local', via: 'audit-log' | 'audit-webhook') => ({
      seq,
      at: at - 5_000 + seq,
      server,
      userAgent: 'cert-rotator/v0.3.1',
      user: 'token-admin',
      verb: 'list',
      path: '/apis/certificates.k8s.io/v1/podcertificaterequests',
      group: 'certificates.k8s.io',
      version: 'v1',
      resource: 'podcertificaterequests',
      subresource: '',
      namespace: '',
      outcome,
      code: outcome === 'false-404' ? 404 : 200,
      latencyMs: 2,
      via,
    });
    const deprecatedCall = {
      userAgent: 'helm/v3.11.0',
      user: 'token-admin',
      gvr: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas' },
      removedRelease: '1.32',
      servers: ['sim-2'],
      count: 4,
      first: TAKEN_AT,
      last: TAKEN_AT,
    };
    const recorded = createSnapshotClient(
      sampleSnapshot({
        cluster: {
          servers: ['sim-1', 'sim-2'],
          sources: ['audit-log', 'audit-webhook'],
          totals: { ...Object.fromEntries(clusterOutcomes.map((o) => [o, 0])), 'false-404': 2, local: 1 } as ClusterTotals,
          bySource: { 'audit-log': 2, 'audit-webhook': 1 },
          events: [
            event(1, 'sim-2', 'false-404', 'audit-log'),
            event(2, 'sim-2', 'false-404', 'audit-log'),
            event(3, 'sim-1', 'local', 'audit-webhook'),
          ],
          lastSeq: 3,
          minutes: [{ server: 'sim-2', minutes: [{ at: at - 60_000, requests: 2, errors: 0, false404s: 2 }] }],
          gvrRates: {
            seconds: 60,
            cells: [
              {
                server: 'sim-2',
                group: 'certificates.k8s.io',
                version: 'v1',
                resource: 'podcertificaterequests',
                requests: 2,
                false404s: 2,
              },
            ],
          },
          deprecatedCalls: [deprecatedCall],
        },
      }),
      { label: 'with-cluster.json' },
    );
    const overview = overviewSchema.parse(await recorded.getOverview());
    expect(overview.cluster).toEqual({
      servers: ['sim-1', 'sim-2'],
      totals: expect.objectContaining({ 'false-404': 2, local: 1 }),
      lastSeq: 3,
      bySource: { 'audit-log': 2, 'audit-webhook': 1 },
      deprecatedCalls: [deprecatedCall],
    });
    const page = clusterEventsPageSchema.parse(await recorded.getClusterEvents({ sinceSeq: 1 }));
    expect(page.events.map((e) => [e.seq, e.server, e.outcome, e.via])).toEqual([
      [2, 'sim-2', 'false-404', 'audit-log'],
      [3, 'sim-1', 'local', 'audit-webhook'],
    ]);
    expect((await recorded.getClusterEvents({ limit: 1 })).events.map((e) => e.seq)).toEqual([3]);
    expect(clusterGvrRatesSchema.parse(await recorded.getClusterGvrRates()).cells[0]).toMatchObject({ server: 'sim-2', false404s: 2 });
    const history = healthHistorySchema.parse(await recorded.getHealthHistory());
    expect(history.servers.find((s) => s.name === 'sim-2')!.cluster).toEqual([{ at: at - 60_000, requests: 2, errors: 0, false404s: 2 }]);
    expect(history.servers.find((s) => s.name === 'sim-1')!.cluster).toBeUndefined();

    // A snapshot without a cluster source: empty answers, as a live core that follows no audit log gives.
    expect((await client.getOverview()).cluster).toBeUndefined();
    expect(await client.getClusterEvents({})).toEqual({ events: [], lastSeq: 0 });
    expect(await client.getClusterGvrRates()).toEqual({ seconds: 0, cells: [] });
  });

  it('implements every method of the contract', () => {
    for (const method of Object.keys(coreClientMethods))
      expect(typeof (client as unknown as Record<string, unknown>)[method], method).toBe('function');
    expect(splitGvrKey('apps/v1/deployments')).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
    expect(splitGvrKey('/v1/pods')).toEqual({ group: '', version: 'v1', resource: 'pods' });
  });
});
