import { describe, expect, it } from 'vitest';
import { serverLabel, type HealthState } from '../../contract/servers.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import { MEDIA, type GVR } from '../discovery/types.js';
import {
  decide,
  NO_ADDRESS_MESSAGE,
  serverViewOf,
  PROXY_ERROR_PREFIX,
  REROUTE_HEADERS,
  type DecisionInput,
  type ServerView,
} from './decide.js';
import { requestInfo } from './request-info.js';
import { buildRouteTable, type RouteTable } from './route-table.js';

const gvr = (key: string): GVR => {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
};
const COMMON = ['apps/v1/deployments', '/v1/pods', '/v1/namespaces'];
const DEVICECLASSES = 'resource.k8s.io/v1/deviceclasses';
const allReady: ServerView = { health: () => 'ready' };

function tableOf(servers: Record<string, string[] | undefined>, excluded: Record<string, string[]> = {}): RouteTable {
  return buildRouteTable(
    Object.entries(servers).map(([name, keys]) => ({ name, gvrs: keys?.map(gvr), excludedGroupVersions: excluded[name] ?? [] })),
  );
}

const AB = tableOf({ A: COMMON, B: [...COMMON, DEVICECLASSES] });

function input(path: string, over: Partial<DecisionInput> & { method?: string; query?: string } = {}): DecisionInput {
  const { method = 'GET', query = '', ...rest } = over;
  return {
    info: requestInfo(method, path, query),
    handling: 'A',
    table: AB,
    peers: allReady,
    peerProxiedHeader: undefined,
    accept: undefined,
    discoveryMode: 'peer-aggregated',
    ...rest,
  };
}

describe('decide: rules in order', () => {
  it("R2: a non-resource request is H's own (faithful: the servers' own MVP)", () => {
    for (const p of ['/healthz', '/version', '/openapi/v3', '/apis/resource.k8s.io/v1', '/api/v1']) {
      expect(decide(input(p, { faithful: true }))).toEqual({ outcome: 'non-resource', target: 'A' });
    }
  });

  it('P8: by default, what only peers serve of per-group discovery and OpenAPI v3 is rerouted as R8 reroutes', () => {
    for (const p of ['/apis/resource.k8s.io', '/apis/resource.k8s.io/v1', '/openapi/v3/apis/resource.k8s.io/v1']) {
      expect(decide(input(p))).toEqual({ outcome: 'rerouted', target: 'B', candidates: ['B'], headers: REROUTE_HEADERS });
      expect(decide(input(p, { method: 'HEAD' })).outcome).toBe('rerouted');
    }
  });

  it("P8: H's own where H serves the group-version, nobody does, it is core, or it is not a read", () => {
    const own = { outcome: 'non-resource', target: 'A' };
    for (const p of ['/healthz', '/api/v1', '/openapi/v3/api/v1', '/apis/apps', '/apis/apps/v1']) {
      expect(decide(input(p))).toEqual(own);
    }
    expect(decide(input('/openapi/v3/apis/apps/v1'))).toEqual(own);
    // A version nobody serves, a trailing slash (not a discovery path to kube-apiserver's mux), a deeper OpenAPI path.
    for (const p of ['/apis/resource.k8s.io/v1alpha3', '/apis/resource.k8s.io/v1/', '/openapi/v3/apis/resource.k8s.io/v1/x']) {
      expect(decide(input(p))).toEqual(own);
    }
    expect(decide(input('/apis/resource.k8s.io/v1', { method: 'POST' }))).toEqual(own);
  });

  it("P8 keeps R3 and R6: a proxied request is served where it lands; a CRD or aggregated group-version is H's own", () => {
    expect(decide(input('/apis/resource.k8s.io/v1', { peerProxiedHeader: 'true' }))).toEqual({ outcome: 'non-resource', target: 'A' });
    const crdOnB = tableOf({ A: COMMON, B: [...COMMON, 'example.com/v1/widgets'] }, { B: ['example.com/v1'] });
    expect(decide(input('/apis/example.com/v1', { table: crdOnB }))).toEqual({ outcome: 'non-resource', target: 'A' });
    expect(decide(input('/openapi/v3/apis/example.com/v1', { table: crdOnB }))).toEqual({ outcome: 'non-resource', target: 'A' });
  });

  it("P8: the OpenAPI v3 index is the port's (JSON only); faithful, proxied or non-JSON: H's own", () => {
    expect(decide(input('/openapi/v3'))).toEqual({ outcome: 'discovery-merged', target: null });
    expect(decide(input('/openapi/v3/', { accept: 'application/json', method: 'HEAD' }))).toEqual({
      outcome: 'discovery-merged',
      target: null,
    });
    const own = { outcome: 'non-resource', target: 'A' };
    expect(decide(input('/openapi/v3', { faithful: true }))).toEqual(own);
    expect(decide(input('/openapi/v3', { peerProxiedHeader: 'true' }))).toEqual(own);
    expect(decide(input('/openapi/v3', { accept: 'application/vnd.kubernetes.protobuf' }))).toEqual(own);
  });

  it("P8: /openapi/v2 is the port's in the forms the servers serve (JSON, protobuf); faithful, proxied, 406 or another path: H's own", () => {
    const merged = { outcome: 'discovery-merged', target: null };
    expect(decide(input('/openapi/v2'))).toEqual(merged);
    expect(decide(input('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', method: 'HEAD' }))).toEqual(
      merged,
    );
    const own = { outcome: 'non-resource', target: 'A' };
    expect(decide(input('/openapi/v2', { faithful: true }))).toEqual(own);
    expect(decide(input('/openapi/v2', { peerProxiedHeader: 'true' }))).toEqual(own);
    expect(decide(input('/openapi/v2', { accept: 'text/html' }))).toEqual(own);
    expect(decide(input('/openapi/v2/'))).toEqual(own);
  });

  it('P8 picks among the servers that serve the group-version with R8/P2 health (an unreachable one gives R10)', () => {
    const peers: ServerView = { health: (n) => (n === 'B' ? 'unreachable' : 'ready'), lastError: () => 'connect ECONNREFUSED' };
    expect(decide(input('/apis/resource.k8s.io/v1', { peers }))).toMatchObject({ outcome: 'unavailable', reason: 'unreachable' });
  });

  it('R2 runs before R3: the loop guard does not turn discovery into a resource decision', () => {
    expect(decide(input('/apis', { accept: MEDIA.v2Json, peerProxiedHeader: 'true' }))).toEqual({
      outcome: 'discovery-merged',
      target: null,
    });
  });

  it('R3: only the exact value "true" of x-kubernetes-peer-proxied forces local serving', () => {
    expect(decide(input(`/apis/${DEVICECLASSES}`, { peerProxiedHeader: 'true' }))).toEqual({
      outcome: 'local',
      target: 'A',
      reason: 'loop-guard',
    });
    for (const v of ['True', 'TRUE', '1', 'true ', '', undefined]) {
      expect(decide(input(`/apis/${DEVICECLASSES}`, { peerProxiedHeader: v })).outcome, String(v)).toBe('rerouted');
    }
  });

  it('R5: H serves the exact GVR: local, whatever the subresource, namespace, name or verb', () => {
    for (const [method, path] of [
      ['GET', '/apis/apps/v1/deployments'],
      ['PUT', '/apis/apps/v1/namespaces/d/deployments/web/status'],
      ['DELETE', '/api/v1/namespaces/d/pods'],
      ['POST', '/api/v1/namespaces/d/pods/p/exec'],
      ['GET', '/api/v1/namespaces/foo/status'],
    ] as const) {
      expect(decide(input(path, { method }))).toEqual({ outcome: 'local', target: 'A', reason: 'serves' });
    }
  });

  it('R5: group, version and resource are compared exactly (case-sensitive)', () => {
    expect(decide(input('/apis/resource.k8s.io/v1/DeviceClasses')).outcome).toBe('notfound');
    expect(decide(input('/apis/Resource.k8s.io/v1/deviceclasses')).outcome).toBe('notfound');
  });

  it('R6: a GVR nobody serves goes to H for its own 404', () => {
    expect(decide(input('/apis/resource.k8s.io/v1alpha3/deviceclasses'))).toEqual({ outcome: 'notfound', target: 'A' });
  });

  it('R6: a peer that was never read (absent from the peer cache) is no candidate', () => {
    const table = tableOf({ A: COMMON, B: undefined });
    expect(decide(input(`/apis/${DEVICECLASSES}`, { table }))).toEqual({ outcome: 'notfound', target: 'A' });
  });

  it('R6: a CRD / aggregated group-version any server reports is never proxied', () => {
    const crd = 'example.com/v1/widgets';
    const onlyB = tableOf({ A: COMMON, B: [...COMMON, crd] }, { B: ['example.com/v1'] });
    expect(decide(input('/apis/example.com/v1/namespaces/d/widgets', { table: onlyB }))).toEqual({ outcome: 'notfound', target: 'A' });
    const both = tableOf({ A: [...COMMON, crd], B: [...COMMON, crd] }, { A: ['example.com/v1'], B: ['example.com/v1'] });
    expect(decide(input('/apis/example.com/v1/widgets', { table: both }))).toMatchObject({ outcome: 'local', target: 'A' });
  });

  it('R6/R8: rerouted to the only other server that serves it', () => {
    expect(decide(input(`/apis/${DEVICECLASSES}`))).toEqual({
      outcome: 'rerouted',
      target: 'B',
      candidates: ['B'],
      headers: REROUTE_HEADERS,
    });
  });

  it("R7: candidates without an address are dropped; none left → 503 with R7's message", () => {
    const table = tableOf({ A: COMMON, B: [...COMMON, DEVICECLASSES], C: [...COMMON, DEVICECLASSES] });
    const noB = serverViewOf(
      new Map([
        ['B', { health: 'ready' as HealthState, address: false }],
        ['C', { health: 'ready' as HealthState, address: true }],
      ]),
    );
    expect(decide(input(`/apis/${DEVICECLASSES}`, { table, peers: noB }))).toEqual({
      outcome: 'rerouted',
      target: 'C',
      candidates: ['C'],
      headers: REROUTE_HEADERS,
    });
    const none = serverViewOf(
      new Map([
        ['B', { health: 'ready' as HealthState }],
        ['C', { health: 'ready' as HealthState }],
      ]),
    );
    expect(decide(input(`/apis/${DEVICECLASSES}`, { table, peers: none }))).toEqual({
      outcome: 'unavailable',
      reason: 'no-address',
      message: NO_ADDRESS_MESSAGE,
      candidates: ['B', 'C'],
    });
  });

  it('R8: the pick is uniform over the candidates by the injected random', () => {
    const table = tableOf({ A: COMMON, B: [...COMMON, DEVICECLASSES], C: [...COMMON, DEVICECLASSES], D: [...COMMON, DEVICECLASSES] });
    const pick = (r: number) => decide(input(`/apis/${DEVICECLASSES}`, { table, random: () => r }));
    expect(pick(0)).toMatchObject({ target: 'B', candidates: ['B', 'C', 'D'] });
    expect(pick(0.34)).toMatchObject({ target: 'C' });
    expect(pick(0.99999)).toMatchObject({ target: 'D' });
    expect(pick(1)).toMatchObject({ target: 'D' }); // a misbehaving random stays in range
  });
});

describe('decide: candidate health (P2 over R8)', () => {
  const table = tableOf({ A: COMMON, B: [...COMMON, DEVICECLASSES], C: [...COMMON, DEVICECLASSES] });
  const view = (b: HealthState, c: HealthState, errors: Record<string, string> = {}): ServerView => ({
    health: (n) => (n === 'B' ? b : n === 'C' ? c : 'ready'),
    lastError: (n) => errors[n],
  });
  const run = (peers: ServerView, r = 0) => decide(input(`/apis/${DEVICECLASSES}`, { table, peers, random: () => r }));

  it('a not-ready or draining candidate is skipped while another is ready', () => {
    for (const h of ['not-ready', 'draining', 'unreachable'] as const) {
      expect(run(view(h, 'ready'))).toEqual({ outcome: 'rerouted', target: 'C', candidates: ['C'], headers: REROUTE_HEADERS });
    }
  });

  it('a candidate not probed yet counts as ready', () => {
    expect(run(view('unknown', 'ready'), 0)).toEqual({
      outcome: 'rerouted',
      target: 'B',
      candidates: ['B', 'C'],
      headers: REROUTE_HEADERS,
    });
  });

  it('when no candidate is ready, a not-ready or draining one still gets the request (Kubernetes would reroute there)', () => {
    expect(run(view('draining', 'unreachable'))).toEqual({ outcome: 'rerouted', target: 'B', candidates: ['B'], headers: REROUTE_HEADERS });
    expect(run(view('not-ready', 'draining'), 0.9)).toEqual({
      outcome: 'rerouted',
      target: 'C',
      candidates: ['B', 'C'],
      headers: REROUTE_HEADERS,
    });
  });

  it("when every candidate is unreachable: R10's 503 now, naming the server and its last error (C5, C40)", () => {
    expect(run(view('unreachable', 'unreachable', { B: 'connect ECONNREFUSED 127.0.0.1:6443' }), 0)).toEqual({
      outcome: 'unavailable',
      reason: 'unreachable',
      candidates: ['B', 'C'],
      message: `${PROXY_ERROR_PREFIX}apiserver "B": connect ECONNREFUSED 127.0.0.1:6443`,
    });
    expect(run(view('unreachable', 'unreachable'), 0.9)).toMatchObject({
      message: `${PROXY_ERROR_PREFIX}apiserver "C": the server is unreachable`,
    });
  });

  it('the 503 names the server as the view labels it: host name, identity beside it', () => {
    const labelled: ServerView = { health: () => 'unreachable', label: (n) => serverLabel(`apiserver-${n.toLowerCase()}`, `cp-${n}`) };
    expect(run(labelled, 0)).toMatchObject({
      outcome: 'unavailable',
      message: `${PROXY_ERROR_PREFIX}apiserver "cp-B" (apiserver-b): the server is unreachable`,
    });
  });

  it('a candidate gone from the cluster is never chosen, even when nothing else serves the GVR: 503 naming it and why', () => {
    expect(run(view('gone', 'draining'))).toEqual({ outcome: 'rerouted', target: 'C', candidates: ['C'], headers: REROUTE_HEADERS });
    expect(run(view('gone', 'gone', { B: 'gone: its identity lease expired' }), 0)).toEqual({
      outcome: 'unavailable',
      reason: 'unreachable',
      candidates: ['B', 'C'],
      message: `${PROXY_ERROR_PREFIX}apiserver "B": gone: its identity lease expired`,
    });
  });

  it("H's own health does not matter: the handling-server policy already chose it (P1)", () => {
    const peers: ServerView = { health: (n) => (n === 'A' ? 'unreachable' : 'ready') };
    expect(decide(input('/apis/apps/v1/deployments', { peers })).outcome).toBe('local');
  });
});

describe('decide: discovery (D1, P6)', () => {
  it.each<[string, string | undefined, DiscoveryMode, string]>([
    ['/apis', MEDIA.v2Json, 'peer-aggregated', 'discovery-merged'],
    ['/apis/', MEDIA.v2Json, 'peer-aggregated', 'discovery-merged'],
    ['/apis', MEDIA.v2Protobuf, 'peer-aggregated', 'discovery-merged'],
    ['/apis', `${MEDIA.v2Json};profile=foo`, 'peer-aggregated', 'discovery-merged'],
    ['/apis', MEDIA.v2JsonNoPeer, 'peer-aggregated', 'discovery-own'],
    ['/apis', MEDIA.v2Json, 'nopeer', 'discovery-own'],
    ['/api', MEDIA.v2Json, 'peer-aggregated', 'discovery-own'],
    ['/apis', MEDIA.v2beta1Json, 'peer-aggregated', 'non-resource'],
    ['/apis', 'application/json', 'peer-aggregated', 'discovery-merged'],
    ['/apis', undefined, 'peer-aggregated', 'discovery-merged'],
    ['/apis', 'application/json', 'nopeer', 'discovery-merged'],
    ['/apis', `${MEDIA.v2beta1Json},application/json;q=0.9`, 'peer-aggregated', 'non-resource'],
    ['/apis', 'application/yaml', 'peer-aggregated', 'non-resource'],
    ['/apis', 'application/vnd.kubernetes.protobuf,application/json', 'peer-aggregated', 'non-resource'],
    ['/api', 'application/json', 'peer-aggregated', 'non-resource'],
    ['/apis/apps', MEDIA.v2Json, 'peer-aggregated', 'non-resource'],
  ])('%s with %s in %s mode → %s', (path, accept, discoveryMode, outcome) => {
    const d = decide(input(path, { accept, discoveryMode }));
    expect(d.outcome).toBe(outcome);
    if (outcome !== 'discovery-merged') expect(d).toMatchObject({ target: 'A' });
  });

  it.each<[string | undefined]>([['application/json'], [undefined], ['*/*']])(
    "faithful: legacy /apis with %s is H's own, as on the servers' own MVP",
    (accept) => {
      expect(decide(input('/apis', { accept, faithful: true }))).toEqual({ outcome: 'non-resource', target: 'A' });
    },
  );

  it("faithful keeps the discovery toggle's meaning for aggregated v2 (P6)", () => {
    expect(decide(input('/apis', { accept: MEDIA.v2Json, faithful: true })).outcome).toBe('discovery-merged');
    expect(decide(input('/apis', { accept: MEDIA.v2Json, faithful: true, discoveryMode: 'nopeer' })).outcome).toBe('discovery-own');
  });

  it("carries the Accept to send for H's own document: the nopeer profile added in the nopeer mode, else the client's (P6)", () => {
    expect(decide(input('/apis', { accept: MEDIA.v2Json, discoveryMode: 'nopeer' }))).toEqual({
      outcome: 'discovery-own',
      target: 'A',
      accept: `${MEDIA.v2JsonNoPeer},${MEDIA.v2Json}`,
    });
    expect(decide(input('/apis', { accept: MEDIA.v2JsonNoPeer, discoveryMode: 'nopeer' }))).toMatchObject({ accept: undefined });
    expect(decide(input('/api', { accept: MEDIA.v2Json }))).toMatchObject({ outcome: 'discovery-own', accept: undefined });
  });

  it("only GET and HEAD of /apis are discovery; other methods are H's own", () => {
    expect(decide(input('/apis', { accept: MEDIA.v2Json, method: 'HEAD' })).outcome).toBe('discovery-merged');
    expect(decide(input('/apis', { accept: MEDIA.v2Json, method: 'POST' }))).toEqual({ outcome: 'non-resource', target: 'A' });
  });
});
