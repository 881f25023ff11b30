// A group served but registered by no APIService, found by a running core over two apiserver
// stand-ins (real HTTP), told in the route table view and gone once the registration is back — each
// within the APIService watch's re-reads, not the 30 s period.
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
      { name: 'old', gitVersion: 'v1.36.3', groups: { 'apps.example.io': ['v1'] } },
      { name: 'new', gitVersion: 'v1.37.2', groups: { 'apps.example.io': ['v1'], 'storagemigration.k8s.io': ['v1'] } },
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
      async () => ((await service.getRouteTable()).missingRegistrations?.length ?? 0) > 0,
      'the finding after the APIService watch event',
    );
    expect((await service.getRouteTable()).missingRegistrations).toEqual([
      {
        group: 'storagemigration.k8s.io',
        versions: ['v1'],
        servedBy: ['new'],
        removedBy: 'old',
        message:
          "storagemigration.k8s.io (v1) is served by new but has no API registration (APIService v1.storagemigration.k8s.io: probably removed by old, which does not serve the group (kube-apiserver deletes, at start-up, the registrations of groups it does not serve)). Legacy discovery straight to the servers does not list it; the port's /apis still does.",
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

  it('cannot be told without the registrations (RBAC): nothing is claimed', () => {
    const doc: ServerDiscovery = {
      apis: {
        apiVersion: 'apidiscovery.k8s.io/v2',
        kind: 'APIGroupDiscoveryList',
        metadata: {},
        items: [{ metadata: { name: 'x.io' }, versions: [{ version: 'v1', resources: [] }] }],
      },
      api: { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] },
      gvrs: [],
      excludedGroupVersions: [],
      source: 'aggregated-v2',
      contentHash: 'h',
      etags: {},
      fetchedAt: 1,
      changedAt: 1,
    };
    expect(missingRegistrations([{ name: 'a', document: doc }])).toEqual([]);
    // An empty list is not a cluster's (every kube-apiserver registers its built-in groups; a simulated
    // server keeps none): nothing said.
    expect(missingRegistrations([{ name: 'a', document: { ...doc, registeredGroupVersions: [] } }])).toEqual([]);
    // With them, and two servers both lacking the group: the remover cannot be told.
    const withRegistrations: ServerDiscovery = { ...doc, registeredGroupVersions: ['apps/v1'] };
    const bare = { ...withRegistrations, apis: { ...doc.apis, items: [] } };
    const found = missingRegistrations([
      { name: 'a', displayName: 'server-a', document: withRegistrations },
      { name: 'b', document: bare },
      { name: 'c', document: bare },
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ group: 'x.io', versions: ['v1'], servedBy: ['a'] });
    expect(found[0]?.removedBy).toBeUndefined();
    expect(found[0]?.message).toContain('is served by server-a but has no API registration (APIService v1.x.io: removed, or never made');
  });
});
