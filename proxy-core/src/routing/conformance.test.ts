// The conformance cases C1–C48 (docs/mixed-version-proxy-rules.md) that the pure routing core decides:
// the routing outcome, target and candidates, the 503 messages, the discovery negotiation and the
// merged /apis document. Servers A, B, C, D and the CRD W are built exactly as §7 describes. What
// needs sockets (streaming, upgrades, headers on the wire, the Host check, the handling-server
// policy) is asserted here at the decision level where that means something, and marked "also
// covered by the integration tests" (proxy-core/test/conformance.test.ts).
import { describe, expect, it } from 'vitest';
import type { PeerHealth } from '../../contract/peers.js';
import { discoveryETag, ifNoneMatchHits } from '../discovery/etag.js';
import { mergeDiscovery } from '../discovery/merge.js';
import { negotiateDiscovery } from '../discovery/negotiate.js';
import { MEDIA, type APIGroupDiscovery, type APIGroupDiscoveryList, type GVR } from '../discovery/types.js';
import { NOT_FOUND_MESSAGE } from '../util/status.js';
import { decide, NO_ADDRESS_MESSAGE, PROXY_ERROR_PREFIX, type Decision, type DecisionInput, type PeerView } from './decide.js';
import { requestInfo } from './request-info.js';
import { buildRouteTable, type RouteTable } from './route-table.js';
import { seededRandom } from '../util/seeded-random.js';

// ---- §7 servers -------------------------------------------------------------------------------

interface ResourceSpec {
  readonly resource: string;
  readonly subresources?: readonly string[];
  readonly verbs?: readonly string[];
}
type ServerSpec = ReadonlyArray<{ readonly group: string; readonly version: string; readonly resources: readonly ResourceSpec[] }>;

const W_GROUP_VERSION = 'example.com/v1';
const A_SPEC: ServerSpec = [
  {
    group: '',
    version: 'v1',
    resources: [{ resource: 'pods', subresources: ['status', 'log', 'exec'] }, { resource: 'namespaces' }, { resource: 'configmaps' }],
  },
  { group: 'apps', version: 'v1', resources: [{ resource: 'deployments', subresources: ['status', 'scale'] }] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resources: [{ resource: 'clusterroles' }] },
  { group: 'batch', version: 'v1', resources: [{ resource: 'jobs' }] },
  // CRD W, on every server.
  { group: 'example.com', version: 'v1', resources: [{ resource: 'widgets' }] },
];
const DEVICECLASSES_V1 = { group: 'resource.k8s.io', version: 'v1', resources: [{ resource: 'deviceclasses' }] };
const SPECS: Record<string, ServerSpec> = {
  A: A_SPEC,
  B: [...A_SPEC, DEVICECLASSES_V1, { group: 'resource.k8s.io', version: 'v1beta1', resources: [{ resource: 'resourceclaims' }] }],
  C: [...A_SPEC, { group: 'resource.k8s.io', version: 'v1beta2', resources: [{ resource: 'resourceclaims' }] }],
  D: [...A_SPEC, DEVICECLASSES_V1],
  // C14: A with v1 pods switched off by runtime-config.
  "A'": A_SPEC.map((gv) => (gv.group === '' ? { ...gv, resources: gv.resources.filter((r) => r.resource !== 'pods') } : gv)),
};

function gvrsOf(spec: ServerSpec): GVR[] {
  return spec.flatMap((gv) => gv.resources.map((r) => ({ group: gv.group, version: gv.version, resource: r.resource })));
}

/** A server's own `/apis` (profile=nopeer): every non-core group, versions in listed order. */
function apisDocument(spec: ServerSpec, verbsOverride: Record<string, readonly string[]> = {}): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  for (const gv of spec) {
    if (gv.group === '') continue;
    let group = items.find((g) => g.metadata?.name === gv.group);
    if (!group) items.push((group = { metadata: { name: gv.group }, versions: [] }));
    group.versions.push({
      version: gv.version,
      freshness: 'Current',
      resources: gv.resources.map((r) => ({
        resource: r.resource,
        scope: 'Cluster' as const,
        singularResource: r.resource.replace(/s$/, ''),
        responseKind: { group: gv.group, version: gv.version, kind: 'Kind' },
        verbs: [...(verbsOverride[`${gv.group}/${gv.version}/${r.resource}`] ?? r.verbs ?? ['get', 'list'])],
        ...(r.subresources ? { subresources: r.subresources.map((s) => ({ subresource: s, verbs: ['get'] })) } : {}),
      })),
    });
  }
  return { apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items };
}

function tableOf(servers: readonly string[], absent: readonly string[] = []): RouteTable {
  return buildRouteTable(
    servers.map((name) => ({
      name,
      gvrs: absent.includes(name) ? undefined : gvrsOf(SPECS[name] as ServerSpec),
      excludedGroupVersions: [W_GROUP_VERSION],
    })),
  );
}

interface PeerFacts {
  readonly health: PeerHealth;
  readonly address: boolean;
  readonly lastError?: string;
}
function peerView(overrides: Record<string, Partial<PeerFacts>> = {}): PeerView {
  const facts = (n: string): PeerFacts => ({ health: 'ready', address: true, ...overrides[n] });
  return { health: (n) => facts(n).health, hasAddress: (n) => facts(n).address, lastError: (n) => facts(n).lastError };
}

// ---- routing decisions ------------------------------------------------------------------------

interface RoutingCase {
  readonly id: string;
  readonly servers: readonly string[];
  readonly handling: string;
  readonly method?: string;
  readonly path: string;
  readonly query?: string;
  readonly peerProxied?: string;
  readonly accept?: string;
  readonly peers?: Record<string, Partial<PeerFacts>>;
  /** Servers whose discovery is not in the peer cache (down while it was rebuilt). */
  readonly absent?: readonly string[];
  readonly expected: Decision | ((d: Decision) => void);
}

const DEVICECLASSES = '/apis/resource.k8s.io/v1/deviceclasses';
const AB = ['A', 'B'];
const rerouted = (target: string, candidates = [target]): Decision => ({ outcome: 'rerouted', target, candidates });
const local = (target: string): Decision => ({ outcome: 'local', target, reason: 'serves' });
const nonResource = (target: string): Decision => ({ outcome: 'non-resource', target });

const routingCases: RoutingCase[] = [
  {
    id: 'C1 a GVR H serves is local',
    servers: AB,
    handling: 'A',
    path: '/apis/apps/v1/namespaces/d/deployments/web',
    expected: local('A'),
  },
  { id: 'C2 a GVR only B serves is rerouted to B', servers: AB, handling: 'A', path: DEVICECLASSES, expected: rerouted('B') },
  { id: 'C3 B serves it locally', servers: AB, handling: 'B', path: DEVICECLASSES, expected: local('B') },
  {
    id: "C4 nobody serves v1alpha3: H's own 404",
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1alpha3/deviceclasses',
    expected: { outcome: 'notfound', target: 'A' },
  },
  // C5: B went down after the last sync and stays a candidate. Once seen unreachable: R10's 503 (P5 form).
  {
    id: 'C5 B down after the last sync, seen unreachable: 503 "Error while proxying…"',
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    peers: { B: { health: 'unreachable', lastError: 'connect ECONNREFUSED 127.0.0.1:6444' } },
    expected: {
      outcome: 'unavailable',
      reason: 'unreachable',
      candidates: ['B'],
      message: `${PROXY_ERROR_PREFIX}apiserver "B": connect ECONNREFUSED 127.0.0.1:6444`,
    },
  },
  // Before any probe noticed, B is still picked and the forward fails (also covered by the integration tests).
  { id: 'C5 B down, not yet noticed: still the reroute target', servers: AB, handling: 'A', path: DEVICECLASSES, expected: rerouted('B') },
  {
    id: "C6 no address for B: 503 with R7's message",
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    peers: { B: { address: false } },
    expected: {
      outcome: 'unavailable',
      reason: 'no-address',
      message: 'Error getting ip and port info of the remote server while proxying',
      candidates: ['B'],
    },
  },
  {
    id: "C7 B absent from the peer cache: H's own 404",
    servers: AB,
    absent: ['B'],
    handling: 'A',
    path: DEVICECLASSES,
    expected: { outcome: 'notfound', target: 'A' },
  },
  {
    id: 'C8 loop guard: served by A locally',
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    peerProxied: 'true',
    expected: { outcome: 'local', target: 'A', reason: 'loop-guard' },
  },
  // C9: X-Kubernetes-APIServer-Rerouted is not an input of the decision at all; only x-kubernetes-peer-proxied is.
  {
    id: 'C9 X-Kubernetes-APIServer-Rerouted is ignored: rerouted',
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    peerProxied: undefined,
    expected: rerouted('B'),
  },
  {
    id: 'C10 subresource ignored: status update is local',
    servers: AB,
    handling: 'A',
    method: 'PUT',
    path: '/apis/apps/v1/namespaces/d/deployments/web/status',
    expected: local('A'),
  },
  {
    id: 'C11 scale on B is local',
    servers: AB,
    handling: 'B',
    path: '/apis/apps/v1/namespaces/d/deployments/web/scale',
    expected: local('B'),
  },
  // C12, C13: streaming and the 101 tunnel are also covered by the integration tests.
  {
    id: 'C12 pod log is local',
    servers: AB,
    handling: 'A',
    path: '/api/v1/namespaces/d/pods/p/log',
    query: 'follow=true',
    expected: local('A'),
  },
  {
    id: 'C13 pod exec is local',
    servers: AB,
    handling: 'A',
    method: 'POST',
    path: '/api/v1/namespaces/d/pods/p/exec',
    query: 'command=sh',
    expected: local('A'),
  },
  {
    id: 'C14 exec where H lacks v1 pods: rerouted to B',
    servers: ["A'", 'B'],
    handling: "A'",
    method: 'POST',
    path: '/api/v1/namespaces/d/pods/p/exec',
    query: 'command=sh',
    expected: rerouted('B'),
  },
  { id: 'C15 watch by query: rerouted', servers: AB, handling: 'A', path: DEVICECLASSES, query: 'watch=true', expected: rerouted('B') },
  {
    id: 'C16 watch by path prefix: same GVR, rerouted',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1/watch/deviceclasses',
    expected: rerouted('B'),
  },
  {
    id: 'C17 namespaced get: rerouted',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims/x',
    expected: rerouted('B'),
  },
  {
    id: 'C18 cluster-scoped get: rerouted',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1/deviceclasses/gpu',
    expected: rerouted('B'),
  },
  {
    id: 'C19 list across namespaces: rerouted',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1beta1/resourceclaims',
    expected: rerouted('B'),
  },
  {
    id: 'C20 deletecollection: rerouted',
    servers: AB,
    handling: 'A',
    method: 'DELETE',
    path: '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims',
    expected: rerouted('B'),
  },
  { id: 'C21 /healthz', servers: AB, handling: 'A', path: '/healthz', expected: nonResource('A') },
  { id: 'C21 /livez', servers: AB, handling: 'A', path: '/livez', expected: nonResource('A') },
  { id: 'C21 /readyz', servers: AB, handling: 'A', path: '/readyz', expected: nonResource('A') },
  { id: 'C22 /version', servers: AB, handling: 'A', path: '/version', expected: nonResource('A') },
  { id: 'C23 /metrics', servers: AB, handling: 'A', path: '/metrics', expected: nonResource('A') },
  { id: 'C24 /openapi/v2', servers: AB, handling: 'A', path: '/openapi/v2', expected: nonResource('A') },
  { id: 'C24 /openapi/v3', servers: AB, handling: 'A', path: '/openapi/v3', expected: nonResource('A') },
  {
    id: 'C25 /apis with v2 JSON: merged',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2Json,
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: "C26 /apis with profile=nopeer: A's own",
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2JsonNoPeer,
    expected: { outcome: 'discovery-own', target: 'A' },
  },
  {
    id: 'C27 /apis with v2 protobuf: merged',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2Protobuf,
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: 'C28 /apis with profile=foo: merged',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: `${MEDIA.v2Json};profile=foo`,
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: 'C29 /apis with v2beta1 only: forwarded to A, never merged',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2beta1Json,
    expected: nonResource('A'),
  },
  {
    id: "C30 /apis with application/json: A's legacy list",
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: 'application/json',
    expected: nonResource('A'),
  },
  {
    id: "C31 legacy group-version: A's own (404)",
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1',
    accept: MEDIA.v2Json,
    expected: nonResource('A'),
  },
  { id: "C32 /api/v1: A's own", servers: AB, handling: 'A', path: '/api/v1', expected: nonResource('A') },
  {
    id: "C32 /api with v2 Accept: A's own",
    servers: AB,
    handling: 'A',
    path: '/api',
    accept: MEDIA.v2Json,
    expected: { outcome: 'discovery-own', target: 'A' },
  },
  {
    id: 'C33 only C serves v1beta2: rerouted to C',
    servers: ['A', 'B', 'C'],
    handling: 'A',
    path: '/apis/resource.k8s.io/v1beta2/resourceclaims',
    expected: rerouted('C'),
  },
  {
    id: 'C34 C lacks v1beta1: rerouted to B',
    servers: ['A', 'B', 'C'],
    handling: 'C',
    path: '/apis/resource.k8s.io/v1beta1/resourceclaims',
    expected: rerouted('B'),
  },
  {
    id: 'C36 B and D both candidates',
    servers: ['A', 'B', 'D'],
    handling: 'A',
    path: DEVICECLASSES,
    expected: (d) => expect(d).toMatchObject({ outcome: 'rerouted', candidates: ['B', 'D'] }),
  },
  { id: 'C38 CRD W: A local', servers: AB, handling: 'A', path: '/apis/example.com/v1/namespaces/d/widgets', expected: local('A') },
  {
    id: "C40 B's lease expired, process gone: still a candidate, 503 (C5 form)",
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    peers: { B: { health: 'unreachable', lastError: 'connect ECONNREFUSED 10.0.0.2:6443' } },
    expected: (d) =>
      expect(d).toMatchObject({
        outcome: 'unavailable',
        reason: 'unreachable',
        candidates: ['B'],
        message: expect.stringMatching(/^Error while proxying request to destination apiserver: /),
      }),
  },
  // C41: X-Remote-* stripping is a pass before the decision (integration tests); the decision is C2's.
  { id: 'C41 identity headers do not change the route', servers: AB, handling: 'A', path: DEVICECLASSES, expected: rerouted('B') },
  // C43: Peerscope cannot run A's authorizer; B's answers (integration tests).
  {
    id: 'C43 unauthorized client: still rerouted to B (B authorizes)',
    servers: AB,
    handling: 'A',
    path: DEVICECLASSES,
    expected: rerouted('B'),
  },
  { id: 'C44 namespace status on B: local', servers: AB, handling: 'B', path: '/api/v1/namespaces/foo/status', expected: local('B') },
  {
    id: 'C45 /apis with v2 JSON (If-None-Match handled on the merged document)',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2Json,
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: 'C46 A only: merged (a single list, returned unchanged)',
    servers: ['A'],
    handling: 'A',
    path: '/apis',
    accept: MEDIA.v2Json,
    expected: { outcome: 'discovery-merged', target: null },
  },
  // C47: the pin:B policy picks H = B (policy tests); then the decision is B local.
  { id: 'C47 pin:B: B local', servers: AB, handling: 'B', path: '/apis/apps/v1/deployments', expected: local('B') },
  // C42 (Host check → 403) and C48 (pinned H not ready → 503) are answered before any decision:
  // covered by the host-check pass, the policy tests and the integration tests.
];

function decisionInput(c: RoutingCase, random?: () => number): DecisionInput {
  return {
    info: requestInfo(c.method ?? 'GET', c.path, c.query ?? ''),
    handling: c.handling,
    table: tableOf(c.servers, c.absent),
    peers: peerView(c.peers),
    peerProxiedHeader: c.peerProxied,
    accept: c.accept,
    discoveryMode: 'peer-aggregated',
    ...(random ? { random } : {}),
  };
}

describe('§7 conformance: routing decisions', () => {
  it.each(routingCases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const d = decide(decisionInput(c, () => 0));
    if (typeof c.expected === 'function') c.expected(d);
    else expect(d).toEqual(c.expected);
  });

  it('C4, C7: "notfound" goes to H, whose not-found handler answers 404 NotFound with the spec\'s message', () => {
    expect(NOT_FOUND_MESSAGE).toBe('the server could not find the requested resource');
  });

  it("C6: R7's message is kube-apiserver's, verbatim", () => {
    expect(NO_ADDRESS_MESSAGE).toBe('Error getting ip and port info of the remote server while proxying');
  });

  it('C12, C13, C15, C16, C20, C44: the request is classified as §7 reads it', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/d/pods/p/log', 'follow=true')).toMatchObject({
      resource: 'pods',
      subresource: 'log',
      verb: 'get',
    });
    expect(requestInfo('POST', '/api/v1/namespaces/d/pods/p/exec', 'command=sh')).toMatchObject({
      resource: 'pods',
      subresource: 'exec',
      verb: 'create',
    });
    expect(requestInfo('GET', DEVICECLASSES, 'watch=true')).toMatchObject({ verb: 'watch', resource: 'deviceclasses' });
    expect(requestInfo('GET', '/apis/resource.k8s.io/v1/watch/deviceclasses', '')).toMatchObject({
      verb: 'watch',
      resource: 'deviceclasses',
    });
    expect(requestInfo('DELETE', '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims', '')).toMatchObject({
      verb: 'deletecollection',
      namespace: 'd',
    });
    expect(requestInfo('GET', '/api/v1/namespaces/foo/status', '')).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      subresource: 'status',
    });
  });

  it('C36: 1,000 requests split uniformly at random between B and D (≈50/50)', () => {
    const random = seededRandom(20260523);
    const input = decisionInput({ id: 'C36', servers: ['A', 'B', 'D'], handling: 'A', path: DEVICECLASSES, expected: () => {} }, random);
    const counts = { B: 0, D: 0 } as Record<string, number>;
    for (let i = 0; i < 1000; i++) {
      const d = decide(input);
      if (d.outcome !== 'rerouted') throw new Error(`expected a reroute, got ${d.outcome}`);
      counts[d.target] = (counts[d.target] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual(['B', 'D']);
    expect(counts.B! + counts.D!).toBe(1000);
    // Binomial(1000, 0.5): σ ≈ 16; ±60 is nearly 4σ.
    expect(Math.abs(counts.B! - 500)).toBeLessThanOrEqual(60);
  });
});

// ---- discovery: negotiation and the merged document -------------------------------------------

describe('§7 conformance: discovery', () => {
  const own = (name: string, verbs: Record<string, readonly string[]> = {}) => ({
    server: name,
    doc: apisDocument(SPECS[name] as ServerSpec, verbs),
  });
  const groupNames = (d: APIGroupDiscoveryList) => d.items.map((g) => g.metadata?.name);
  const group = (d: APIGroupDiscoveryList, name: string) => d.items.find((g) => g.metadata?.name === name);

  it("C25: merged = A's groups ∪ resource.k8s.io {v1 deviceclasses, v1beta1 resourceclaims}; its own ETag", () => {
    const merged = mergeDiscovery([own('A'), own('B')]);
    expect(groupNames(merged)).toEqual(['apps', 'rbac.authorization.k8s.io', 'batch', 'example.com', 'resource.k8s.io']);
    expect(group(merged, 'resource.k8s.io')!.versions.map((v) => [v.version, (v.resources ?? []).map((r) => r.resource)])).toEqual([
      ['v1', ['deviceclasses']],
      ['v1beta1', ['resourceclaims']],
    ]);
    for (const name of ['apps', 'rbac.authorization.k8s.io', 'batch', 'example.com'])
      expect(group(merged, name)).toEqual(group(own('A').doc, name));
    expect(discoveryETag(JSON.stringify(merged))).not.toBe(discoveryETag(JSON.stringify(own('A').doc)));
  });

  it("C26: profile=nopeer negotiates H's own document (no resource.k8s.io in A's)", () => {
    expect(negotiateDiscovery(MEDIA.v2JsonNoPeer)).toMatchObject({ kind: 'aggregated', version: 'v2', profile: 'nopeer' });
    expect(groupNames(own('A').doc)).not.toContain('resource.k8s.io');
  });

  it('C27, C28, C29, C30: negotiation', () => {
    expect(negotiateDiscovery(MEDIA.v2Protobuf)).toEqual({ kind: 'aggregated', version: 'v2', encoding: 'protobuf', profile: undefined });
    expect(negotiateDiscovery(`${MEDIA.v2Json};profile=foo`)).toEqual({
      kind: 'aggregated',
      version: 'v2',
      encoding: 'json',
      profile: 'foo',
    });
    expect(negotiateDiscovery(MEDIA.v2beta1Json)).toMatchObject({ kind: 'aggregated', version: 'v2beta1' });
    expect(negotiateDiscovery('application/json')).toEqual({ kind: 'legacy' });
  });

  it('C35: resource.k8s.io versions v1, v1beta1 (from B), v1beta2 (from C), visiting A, B, C', () => {
    const merged = mergeDiscovery([own('C'), own('A'), own('B')]);
    expect(group(merged, 'resource.k8s.io')!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1beta2']);
  });

  it('C37: one deviceclasses entry, verbs [get, list, watch], other fields from B', () => {
    const b = own('B', { 'resource.k8s.io/v1/deviceclasses': ['get', 'list'] });
    const d = own('D', { 'resource.k8s.io/v1/deviceclasses': ['get', 'list', 'watch'] });
    const deviceclassesOf = (x: { doc: APIGroupDiscoveryList }) =>
      x.doc.items.find((g) => g.metadata?.name === 'resource.k8s.io')!.versions[0]!.resources![0]!;
    deviceclassesOf(b).singularResource = 'from-b';
    deviceclassesOf(d).singularResource = 'from-d';
    const merged = mergeDiscovery([d, own('A'), b]);
    const entries = merged.items.flatMap((g) =>
      g.versions.flatMap((v) => (v.resources ?? []).filter((r) => r.resource === 'deviceclasses')),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ verbs: ['get', 'list', 'watch'], singularResource: 'from-b' });
  });

  it('C39: example.com (CRD W on both) appears once', () => {
    const merged = mergeDiscovery([own('A'), own('B')]);
    expect(groupNames(merged).filter((n) => n === 'example.com')).toHaveLength(1);
    expect(group(merged, 'example.com')!.versions).toHaveLength(1);
  });

  it('C40: the merged document still lists the groups of B, whose process is gone', () => {
    expect(groupNames(mergeDiscovery([own('A'), own('B')]))).toContain('resource.k8s.io');
  });

  it("C45: If-None-Match equal to C25's ETag hits (304)", () => {
    const etag = discoveryETag(JSON.stringify(mergeDiscovery([own('A'), own('B')])));
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(discoveryETag(JSON.stringify(own('A').doc)), etag)).toBe(false);
  });

  it("C46: A alone: A's list unchanged", () => {
    const a = own('A');
    expect(mergeDiscovery([a])).toBe(a.doc);
  });
});
