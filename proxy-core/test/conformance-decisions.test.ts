// The conformance cases of the spec (§7) that the socket tests (conformance-a-and-b, -peers-down and -server-sets) cannot set up
// with simulated servers, decided by the pure routing core: no address (C6), protobuf and v2beta1
// discovery (C27, C29), conflicting verbs (C37), CRDs (C38, C39).
import { describe, expect, it } from 'vitest';
import type { HealthState } from '../contract/servers.js';
import { mergeDiscovery } from '../engine/discovery/merge.js';
import { negotiateDiscovery } from '../engine/discovery/negotiate.js';
import { MEDIA, type APIGroupDiscoveryList, type GVR } from '../engine/discovery/types.js';
import { decide, NO_ADDRESS_MESSAGE, type DecisionInput } from '../engine/routing/decide.js';
import { requestInfo } from '../engine/routing/request-info.js';
import { buildRouteTable } from '../engine/routing/route-table.js';

const g = (key: string): GVR => {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
};
const A = [
  'apps/v1/deployments',
  '/v1/pods',
  '/v1/namespaces',
  '/v1/configmaps',
  'rbac.authorization.k8s.io/v1/clusterroles',
  'batch/v1/jobs',
];
const B = [...A, 'resource.k8s.io/v1/deviceclasses', 'resource.k8s.io/v1beta1/resourceclaims'];
const W = 'example.com/v1/widgets';

function input(over: Partial<DecisionInput> & { path: string; method?: string; query?: string }): DecisionInput {
  const { path, method = 'GET', query = '', ...rest } = over;
  return {
    info: requestInfo(method, path, query),
    handling: 'A',
    table: buildRouteTable([
      { name: 'A', gvrs: A.map(g) },
      { name: 'B', gvrs: B.map(g) },
    ]),
    peers: { health: (): HealthState => 'ready' },
    peerProxiedHeader: undefined,
    accept: undefined,
    discoveryMode: 'peer-aggregated',
    ...rest,
  };
}

function list(resources: Record<string, { verbs: string[] }>): APIGroupDiscoveryList {
  const groups = new Map<string, Map<string, { resource: string; verbs: string[] }[]>>();
  for (const [key, v] of Object.entries(resources)) {
    const { group, version, resource } = g(key);
    const versions = groups.get(group) ?? new Map();
    groups.set(group, versions);
    versions.set(version, [...(versions.get(version) ?? []), { resource, verbs: v.verbs }]);
  }
  return {
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: [...groups].map(([name, versions]) => ({
      metadata: { name },
      versions: [...versions].map(([version, rs]) => ({
        version,
        freshness: 'Current',
        resources: rs.map((r) => ({
          resource: r.resource,
          scope: 'Cluster' as const,
          responseKind: { group: '', version: '', kind: 'K' },
          verbs: r.verbs,
        })),
      })),
    })),
  };
}

describe('conformance cases decided by the routing core', () => {
  it("C6: the only candidate has no address: 503 with R7's message", () => {
    const d = decide(
      input({ path: '/apis/resource.k8s.io/v1/deviceclasses', peers: { health: () => 'ready', hasAddress: (s) => s !== 'B' } }),
    );
    expect(d).toMatchObject({ outcome: 'unavailable', message: NO_ADDRESS_MESSAGE });
    expect(NO_ADDRESS_MESSAGE).toBe('Error getting ip and port info of the remote server while proxying');
  });

  it('C27: a protobuf-only v2 Accept negotiates aggregated protobuf (Peerscope answers 406: it does not encode protobuf)', () => {
    expect(negotiateDiscovery(MEDIA.v2Protobuf)).toEqual({ kind: 'aggregated', version: 'v2', encoding: 'protobuf', profile: undefined });
    expect(decide(input({ path: '/apis', accept: MEDIA.v2Protobuf })).outcome).toBe('discovery-merged');
  });

  it('C29: a v2beta1-only Accept is forwarded to H, never merged', () => {
    const d = decide(input({ path: '/apis', accept: MEDIA.v2beta1Json }));
    expect(d).toEqual({ outcome: 'non-resource', target: 'A' });
  });

  it('C28: an unknown profile is the default (merged)', () => {
    expect(decide(input({ path: '/apis', accept: `${MEDIA.v2Json};profile=foo` })).outcome).toBe('discovery-merged');
  });

  it('C37: the same resource with different verbs merges into one entry with the sorted union, other fields from the first visited', () => {
    const merged = mergeDiscovery([
      { server: 'D', doc: list({ 'resource.k8s.io/v1/deviceclasses': { verbs: ['get', 'list', 'watch'] } }) },
      { server: 'B', doc: list({ 'resource.k8s.io/v1/deviceclasses': { verbs: ['list', 'get'] } }) },
    ]);
    const entries = merged.items.flatMap((x) => x.versions.flatMap((v) => v.resources ?? []));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.verbs).toEqual(['get', 'list', 'watch']);
  });

  it('C38: a CRD group-version H knows is never proxied, even where H lacks it', () => {
    const table = buildRouteTable([
      { name: 'A', gvrs: A.map(g), excludedGroupVersions: ['example.com/v1'] },
      { name: 'B', gvrs: [...B, W].map(g), excludedGroupVersions: ['example.com/v1'] },
    ]);
    expect(decide(input({ path: '/apis/example.com/v1/namespaces/d/widgets', table }))).toEqual({ outcome: 'notfound', target: 'A' });
    const both = buildRouteTable([
      { name: 'A', gvrs: [...A, W].map(g), excludedGroupVersions: ['example.com/v1'] },
      { name: 'B', gvrs: [...B, W].map(g) },
    ]);
    expect(decide(input({ path: '/apis/example.com/v1/namespaces/d/widgets', table: both }))).toMatchObject({
      outcome: 'local',
      target: 'A',
    });
  });

  it('C39: a CRD every server lists appears once in the merged document', () => {
    const merged = mergeDiscovery([
      { server: 'A', doc: list({ [W]: { verbs: ['get'] }, 'apps/v1/deployments': { verbs: ['get'] } }) },
      { server: 'B', doc: list({ [W]: { verbs: ['get'] }, 'apps/v1/deployments': { verbs: ['get'] } }) },
    ]);
    expect(merged.items.filter((x) => x.metadata?.name === 'example.com')).toHaveLength(1);
  });

  it('C35: versions merge in order-preserving order visiting servers by name', () => {
    const merged = mergeDiscovery([
      { server: 'C', doc: list({ 'resource.k8s.io/v1beta2/resourceclaims': { verbs: ['get'] } }) },
      {
        server: 'B',
        doc: list({ 'resource.k8s.io/v1/deviceclasses': { verbs: ['get'] }, 'resource.k8s.io/v1beta1/resourceclaims': { verbs: ['get'] } }),
      },
    ]);
    expect(merged.items[0]!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1beta2']);
  });

  it('R2: request classification follows requestinfo.go', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/foo/status')).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      subresource: 'status',
      verb: 'get',
    });
    expect(requestInfo('GET', '/apis/apps/v1/watch/namespaces/ns/deployments')).toMatchObject({
      verb: 'watch',
      resource: 'deployments',
      namespace: 'ns',
    });
    expect(requestInfo('GET', '/api/v1/pods', 'watch=1')).toMatchObject({ verb: 'watch' });
    expect(requestInfo('GET', '/api/v1/pods', 'watch=false')).toMatchObject({ verb: 'list' });
    expect(requestInfo('GET', '/api/v1/pods', 'fieldSelector=metadata.name%3Dweb')).toMatchObject({ verb: 'list', name: 'web' });
    expect(requestInfo('DELETE', '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims')).toMatchObject({ verb: 'deletecollection' });
    expect(requestInfo('GET', '/api/v1/proxy/namespaces/ns/pods/p/a/b')).toMatchObject({ verb: 'proxy', name: 'p', subresource: '' });
    for (const p of ['/apis', '/apis/apps', '/apis/apps/v1', '/api', '/api/v1', '/healthz', '/openapi/v3/apis/apps/v1', '/version']) {
      expect(requestInfo('GET', p).isResourceRequest, p).toBe(false);
    }
  });
});

describe('the merged document is JSON for a client that prefers protobuf but accepts JSON', () => {
  it('acceptsAggregatedV2Json reads kubectl-style Accept lists', async () => {
    const { acceptsAggregatedV2Json } = await import('../engine/discovery/negotiate.js');
    expect(acceptsAggregatedV2Json(`${MEDIA.v2Protobuf},${MEDIA.v2Json},application/json`)).toBe(true);
    expect(acceptsAggregatedV2Json(MEDIA.v2Protobuf)).toBe(false);
  });
});
