// The real kubectl through the local port beyond the servers' own MVP (rule P8): the handling server
// pinned to the older simulated release, a group only the newer serves. By default kubectl explain
// reads that group's OpenAPI through the port's merged /openapi/v3 index and legacy discovery lists it;
// with --faithful (the servers' own MVP) both behave as straight against the older server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { startBed, type Bed } from '../../proxy-core/test/harness.js';
import { startRegistrationStandIns, type RegistrationStandIns } from '../../proxy-core/test/registration-standins.js';
import { hasKubectl, kubectlAt } from './kubectl.js';

const OLD = 'v1.36-dev';
const NEW = 'v1.37-dev';
// storagemigration.k8s.io/v1 storageversionmigrations: only v1.37-dev serves it.
const NEW_ONLY = 'storageversionmigrations';
const NEW_ONLY_GROUP_VERSION = 'storagemigration.k8s.io/v1';

for (const faithful of [false, true]) {
  describe.skipIf(!hasKubectl)(`the real kubectl through the port, ${faithful ? '--faithful' : 'default (P8)'}, pin:old`, () => {
    let bed: Bed;
    const atServer: { server: string; url: string }[] = [];

    beforeAll(async () => {
      bed = await startBed(
        { old: loadRelease(OLD), new: loadRelease(NEW) },
        { policy: { kind: 'pin', server: 'old' }, ...(faithful ? { faithful: true } : {}) },
        { http: false },
      );
      bed.sim.onRequest((server, req) => atServer.push({ server, url: req.url }));
    });
    afterAll(() => bed?.close());

    it(`kubectl explain of a kind only ${NEW} serves ${faithful ? 'fails as on the older server' : 'prints its fields'}`, async () => {
      atServer.length = 0;
      const r = await kubectlAt(bed.url)(['explain', NEW_ONLY]);
      if (faithful) {
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain(`couldn't find resource for "${NEW_ONLY_GROUP_VERSION}`);
      } else {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('KIND:       StorageVersionMigration');
        expect(r.stdout).toContain('FIELDS:');
        // The group-version's document came from the newer server, asked through the port.
        expect(atServer.find((q) => q.url.startsWith(`/openapi/v3/apis/${NEW_ONLY_GROUP_VERSION}`))?.server).toBe('new');
      }
    });

    it(`api-resources lists ${NEW_ONLY} in both modes (aggregated /apis stays merged: the discovery toggle's meaning)`, async () => {
      const r = await kubectlAt(bed.url)(['api-resources', '--no-headers', '-o', 'name']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')).toContain(`${NEW_ONLY}.storagemigration.k8s.io`);
    });

    it(`legacy discovery (kubectl get --raw) ${faithful ? "is the older server's own" : `lists ${NEW_ONLY_GROUP_VERSION} and answers it`}`, async () => {
      const kubectl = kubectlAt(bed.url);
      const groups = await kubectl(['get', '--raw', '/apis']);
      expect(groups.code, groups.stderr).toBe(0);
      const listed = (JSON.parse(groups.stdout) as { groups: { versions: { groupVersion: string }[] }[] }).groups.flatMap((g) =>
        g.versions.map((v) => v.groupVersion),
      );
      const resources = await kubectl(['get', '--raw', `/apis/${NEW_ONLY_GROUP_VERSION}`]);
      if (faithful) {
        expect(listed).not.toContain(NEW_ONLY_GROUP_VERSION);
        expect(resources.code).not.toBe(0);
        expect(resources.stderr).toContain('NotFound');
      } else {
        expect(listed).toContain(NEW_ONLY_GROUP_VERSION);
        expect(resources.code, resources.stderr).toBe(0);
        expect(JSON.parse(resources.stdout)).toMatchObject({ kind: 'APIResourceList', groupVersion: NEW_ONLY_GROUP_VERSION });
      }
    });
  });
}

// As fresh as the servers, on two apiserver stand-ins (real HTTP) sharing one store of CRDs: a CRD
// created is told by the CRD watch, and the port's discovery follows at once — not at the discovery
// period, set here to ten minutes so that only the watch can make the test pass.
describe.skipIf(!hasKubectl)('the real kubectl through the port: a CRD created is listed at once', () => {
  let standIns: RegistrationStandIns;
  let core: Core;
  let url: string;

  beforeAll(async () => {
    standIns = await startRegistrationStandIns([
      { name: 'old', gitVersion: 'v1.36.3', groups: { 'apps.example.io': ['v1'] } },
      { name: 'new', gitVersion: 'v1.37.2', groups: { 'apps.example.io': ['v1'] } },
    ]);
    core = createCore({
      servers: standIns.servers,
      listen: { host: '127.0.0.1', port: 0 },
      policy: { kind: 'pin', server: 'old' },
      discoveryIntervalMs: 600_000,
    });
    url = (await core.start()).url;
    for (const deadline = Date.now() + 30_000; core.servers.apiWatchOf()?.state('customresourcedefinitions') !== 'watching';) {
      if (Date.now() > deadline) throw new Error('the CRD watch did not start within 30 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await core?.close(0);
    await standIns?.close();
  });

  const listed = async () => {
    const res = await fetch(`${url}/apis`, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const doc = (await res.json()) as { items: { metadata: { name: string } }[] };
    return doc.items.some((i) => i.metadata.name === 'fresh.example.io');
  };
  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (const deadline = Date.now() + 20_000; !(await condition());) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('kubectl api-resources lists it, and its first request is labelled local (the handling server answered 201)', async () => {
    expect(await listed()).toBe(false);
    standIns.createCrd('fresh.example.io', 'v1');
    await until(listed, "the CRD in the port's /apis");
    const resources = await kubectlAt(url)(['api-resources', '--no-headers', '-o', 'name']);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout.split('\n')).toContain('things.fresh.example.io');
    const res = await fetch(`${url}/apis/fresh.example.io/v1/namespaces/default/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'fresh.example.io/v1', kind: 'Thing', metadata: { name: 'first' } }),
    });
    await res.text();
    expect(res.status).toBe(201);
    expect(res.headers.get('x-peerscope-route')).toBe('handling=old; answering=old; outcome=local');
    // Deleted: gone from the port's discovery as fast.
    standIns.deleteCrd('fresh.example.io', 'v1');
    await until(async () => !(await listed()), "the CRD to leave the port's /apis");
  });
});
