// Discovery of a simulated apiserver equals its release catalog and the shared fixtures, with
// kube-apiserver's negotiation (v2 only, q-values, */*), ETag/304 and legacy 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureReleases, readFixture } from '../../../test/fixtures.js';
import { MEDIA } from '../../engine/discovery/types.js';
import { catalogEntries, loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { negotiateRoot } from './discovery.js';
import { callServer } from '../../test/sim-client.js';

interface AggregatedDoc {
  items: { metadata?: { name?: string }; versions: { version: string; resources?: { resource: string }[] }[] }[];
}

function aggregatedGvrs(doc: AggregatedDoc): string[] {
  return doc.items
    .flatMap((g) => g.versions.flatMap((v) => (v.resources ?? []).map((r) => `${g.metadata?.name ?? ''}/${v.version}/${r.resource}`)))
    .sort();
}

function resourceListGvrs(doc: { groupVersion: string; resources: { name: string }[] }): string[] {
  const [group, version] = doc.groupVersion.includes('/') ? doc.groupVersion.split('/') : ['', doc.groupVersion];
  return doc.resources.filter((r) => !r.name.includes('/')).map((r) => `${group}/${version}/${r.name}`);
}

const RELEASES = ['v1.36-dev', 'v1.37-dev'];

describe('negotiation of /api and /apis', () => {
  it('picks v2, skips v2beta1 and protobuf, falls back to legacy JSON, honours q and */*', () => {
    expect(negotiateRoot(MEDIA.v2Json)).toBe('aggregated-v2');
    expect(negotiateRoot(MEDIA.v2JsonNoPeer)).toBe('aggregated-v2');
    expect(negotiateRoot(`${MEDIA.v2beta1Json},application/json`)).toBe('legacy');
    expect(negotiateRoot(MEDIA.v2beta1Json)).toBeUndefined();
    expect(negotiateRoot(`${MEDIA.v2Protobuf},${MEDIA.v2Json}`)).toBe('aggregated-v2');
    expect(negotiateRoot(`application/json;q=0.9,${MEDIA.v2Json};q=0.5`)).toBe('legacy');
    expect(negotiateRoot(`application/json;q=0.1,${MEDIA.v2Json}`)).toBe('aggregated-v2');
    expect(negotiateRoot('*/*')).toBe('legacy');
    expect(negotiateRoot(undefined)).toBe('legacy');
    expect(negotiateRoot('text/html')).toBeUndefined();
  });
});

describe("the simulated apiservers' discovery", () => {
  let cluster: SimCluster;
  const url = (i: number) => cluster.servers[i]?.info().url as string;

  beforeAll(async () => {
    cluster = await startSimCluster({ releases: RELEASES.map(loadRelease), http: true });
  });
  afterAll(() => cluster?.close());

  it('the shared fixtures are the two bundled releases', () => {
    expect(fixtureReleases()).toEqual(RELEASES);
  });

  RELEASES.forEach((release, i) => {
    it(`${release}: aggregated /apis and /api list exactly the catalog's GVRs, which equal the fixtures'`, async () => {
      const catalog = [...catalogEntries(loadRelease(release))].map((e) => `${e.group}/${e.version}/${e.resource.name}`).sort();
      const apis = await callServer(cluster, url(i), '/apis', { headers: { accept: MEDIA.v2Json } });
      const api = await callServer(cluster, url(i), '/api', { headers: { accept: MEDIA.v2Json } });
      expect(apis.status).toBe(200);
      expect(apis.headers['content-type']).toBe(MEDIA.v2Json);
      expect(apis.headers.vary).toBe('Accept');
      expect(api.json().kind).toBe('APIGroupDiscoveryList');
      const served = [...aggregatedGvrs(apis.json<AggregatedDoc>()), ...aggregatedGvrs(api.json<AggregatedDoc>())].sort();
      expect(served).toEqual(catalog);
      const fixture = [
        ...aggregatedGvrs(readFixture(release, 'aggregated_v2.json') as AggregatedDoc),
        ...resourceListGvrs(readFixture(release, 'api__v1.json') as { groupVersion: string; resources: { name: string }[] }),
      ].sort();
      expect(served).toEqual(fixture);
    });

    it(`${release}: legacy discovery lists the same GVRs`, async () => {
      const catalog = [...catalogEntries(loadRelease(release))].map((e) => `${e.group}/${e.version}/${e.resource.name}`).sort();
      const groups = (await callServer(cluster, url(i), '/apis', { headers: { accept: 'application/json' } })).json<{
        kind: string;
        groups: { name: string; versions: { version: string }[] }[];
      }>();
      expect(groups.kind).toBe('APIGroupList');
      const versions = (await callServer(cluster, url(i), '/api')).json<{ kind: string; versions: string[] }>();
      expect(versions.kind).toBe('APIVersions');
      const paths = [
        ...versions.versions.map((v) => `/api/${v}`),
        ...groups.groups.flatMap((g) => g.versions.map((v) => `/apis/${g.name}/${v.version}`)),
      ];
      const gvrs: string[] = [];
      for (const p of paths) {
        const r = await callServer(cluster, url(i), p);
        expect(r.status, p).toBe(200);
        gvrs.push(...resourceListGvrs(r.json()));
      }
      expect(gvrs.sort()).toEqual(catalog);
      const group = await callServer(cluster, url(i), '/apis/apps');
      expect(group.json()).toMatchObject({ kind: 'APIGroup', name: 'apps', preferredVersion: { groupVersion: 'apps/v1' } });
    });
  });

  it('ETag is the quoted uppercase SHA-512 and a matching If-None-Match gets 304', async () => {
    const first = await callServer(cluster, url(0), '/apis', { headers: { accept: MEDIA.v2JsonNoPeer } });
    expect(first.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const again = await callServer(cluster, url(0), '/apis', {
      headers: { accept: MEDIA.v2Json, 'if-none-match': first.headers.etag as string },
    });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    const other = await callServer(cluster, url(1), '/apis', { headers: { accept: MEDIA.v2Json } });
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it('v2beta1 alone is 406 Status; with application/json after it, legacy', async () => {
    const only = await callServer(cluster, url(0), '/apis', { headers: { accept: MEDIA.v2beta1Json } });
    expect(only.status).toBe(406);
    expect(only.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const fallback = await callServer(cluster, url(0), '/apis', { headers: { accept: `${MEDIA.v2beta1Json},application/json` } });
    expect(fallback.json().kind).toBe('APIGroupList');
  });

  it("a group or version the release does not serve is 404 with the not-found handler's message", async () => {
    // lifecycle.k8s.io exists only in v1.37-dev.
    for (const path of ['/apis/lifecycle.k8s.io', '/apis/lifecycle.k8s.io/v1alpha1', '/api/v2', '/apis/apps/v9']) {
      const r = await callServer(cluster, url(0), path);
      expect(r.status, path).toBe(404);
      expect(r.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    }
    expect((await callServer(cluster, url(1), '/apis/lifecycle.k8s.io/v1alpha1')).status).toBe(200);
  });

  it('serves OpenAPI v3 (index and per group-version, with fieldValidation on PATCH) and v2 JSON; v2 protobuf is 406', async () => {
    const index = (await callServer(cluster, url(0), '/openapi/v3')).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
    expect(index.paths['apis/apps/v1']?.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    const doc = (await callServer(cluster, url(0), index.paths['apis/apps/v1']?.serverRelativeURL as string)).json<{
      paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; 'x-kubernetes-group-version-kind': unknown }>>;
    }>();
    const patchOp = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.patch;
    expect(patchOp?.['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(patchOp?.parameters).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
    const v2 = await callServer(cluster, url(0), '/openapi/v2', { headers: { accept: 'application/json' } });
    expect(v2.json()).toMatchObject({ swagger: '2.0' });
    const pb = await callServer(cluster, url(0), '/openapi/v2', {
      headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(pb.status).toBe(406);
    expect(pb.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable' });
  });
});
