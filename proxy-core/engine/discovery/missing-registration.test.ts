// A group served whose APIService is gone (legacy /apis straight to the servers drops it), found by a
// running core over two apiserver stand-ins (real HTTP), told in the route table view and gone once the
// registration is back — each within the APIService watch's re-reads, not the 30 s period. The
// aggregator's own group, served with no APIService, is never called missing (issue 44).
import { afterEach, describe, expect, it } from 'vitest';
import { startRegistrationStandIns, type RegistrationStandIns } from '../../test/registration-standins.js';
import { createCoreService } from '../../hosts/service/service.js';
import { createCore, type Core } from '../core.js';
import type { ServerDiscovery } from './fetch.js';
import { missingRegistrations } from './missing-registration.js';

let standIns: RegistrationStandIns | undefined;
let core: Core | undefined;
afterEach(async () => {
  await core?.close(0);
  await standIns?.close();
  core = standIns = undefined;
});

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('missing API registrations', () => {
  it('a group only the newer serves, its APIService removed: named with the server that likely removed it; cleared when it is back', async () => {
    standIns = await startRegistrationStandIns([
      { name: 'old', gitVersion: 'v1.36.3', groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'] } },
      {
        name: 'new',
        gitVersion: 'v1.37.2',
        groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'], 'storagemigration.k8s.io': ['v1'] },
      },
    ]);
    // A long period: only the APIService watch can make the finding show within the test.
    core = createCore({ servers: standIns.servers, listen: { host: '127.0.0.1', port: 0 }, discoveryIntervalMs: 600_000 });
    await core.start();
    const service = createCoreService(core);
    expect((await service.getRouteTable()).missingRegistrations).toEqual([]);

    // The stand-ins tell open watches only (no replay from a resourceVersion): wait for the watch.
    await until(() => core?.servers.apiWatchOf()?.state('apiservices') === 'watching', 'the APIService watch');
    standIns.deregister('storagemigration.k8s.io/v1');
    await until(
      // Each server's legacy /apis is re-read on its own: wait for both.
      async () => (await service.getRouteTable()).missingRegistrations?.[0]?.missingFrom?.length === 2,
      'the finding after the APIService watch event',
    );
    expect((await service.getRouteTable()).missingRegistrations).toEqual([
      {
        group: 'storagemigration.k8s.io',
        versions: ['v1'],
        servedBy: ['new'],
        missingFrom: ['old', 'new'],
        removedBy: 'old',
        message:
          "storagemigration.k8s.io (v1) is served by new, but legacy discovery (GET /apis) straight to old, new does not list it: its registration (APIService v1.storagemigration.k8s.io) is missing, probably deleted by old, which does not serve the group (kube-apiserver deletes, at start-up, the registrations of groups it does not serve). The port's /apis still lists it.",
      },
    ]);
    // The port's legacy /apis (rule P8) still lists the group: it comes from what each server serves.
    const port = core.address()!;
    const legacy = (await (await fetch(`http://127.0.0.1:${port.port}/apis`, { headers: { accept: 'application/json' } })).json()) as {
      groups: { name: string }[];
    };
    expect(legacy.groups.map((g) => g.name)).toContain('storagemigration.k8s.io');

    standIns.register('storagemigration.k8s.io/v1');
    await until(async () => (await service.getRouteTable()).missingRegistrations?.length === 0, 'the finding to clear');
  });

  it('only what a server serves and its own legacy /apis lacks; nothing without a legacy /apis (RBAC, or not an APIGroupList)', () => {
    const items = (groups: Record<string, string[]>) =>
      Object.entries(groups).map(([name, versions]) => ({
        metadata: { name },
        versions: versions.map((version) => ({ version, resources: [] })),
      }));
    const doc = (groups: Record<string, string[]>, legacy?: string[]): ServerDiscovery => ({
      apis: { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: items(groups) },
      api: { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] },
      gvrs: [],
      excludedGroupVersions: [],
      ...(legacy ? { legacyGroupVersions: legacy } : {}),
      source: 'aggregated-v2',
      contentHash: 'h',
      etags: {},
      fetchedAt: 1,
      changedAt: 1,
    });
    expect(missingRegistrations([{ name: 'a', document: doc({ 'x.io': ['v1'] }) }])).toEqual([]);
    // A healthy cluster: the aggregator's group is listed by legacy /apis too; and a group only a
    // newer server serves, absent from an older server's own legacy list (the simulated servers'
    // legacy /apis is what each serves), is the mixed-version state, not a lost registration.
    expect(
      missingRegistrations([
        { name: 'a', document: doc({ 'apiregistration.k8s.io': ['v1'], 'x.io': ['v1'] }, ['apiregistration.k8s.io/v1', 'x.io/v1']) },
        { name: 'b', document: doc({ 'apiregistration.k8s.io': ['v1'] }, ['apiregistration.k8s.io/v1']) },
      ]),
    ).toEqual([]);
    // Even a server whose legacy list leaves the aggregator's group out says nothing of it.
    expect(missingRegistrations([{ name: 'a', document: doc({ 'apiregistration.k8s.io': ['v1'] }, []) }])).toEqual([]);
    // A version lost on both servers that serve the group: the remover cannot be told.
    const found = missingRegistrations([
      { name: 'a', displayName: 'server-a', document: doc({ 'x.io': ['v1beta1', 'v1'] }, ['x.io/v1beta1']) },
      { name: 'b', document: doc({ 'x.io': ['v1'] }, []) },
      { name: 'c', document: doc({ 'x.io': ['v1beta1'] }, ['x.io/v1beta1']) },
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ group: 'x.io', versions: ['v1'], servedBy: ['a', 'b'], missingFrom: ['a', 'b', 'c'] });
    expect(found[0]?.removedBy).toBeUndefined();
    expect(found[0]?.message).toContain(
      'is served by server-a, b, but legacy discovery (GET /apis) straight to server-a, b, c does not list it: its registration (APIService v1.x.io) is missing, deleted (by hand',
    );
  });
});
