// Conformance cases C1–C24 (docs/mixed-version-proxy-rules.md §7) as the pure routing core decides them:
// local, rerouted and not-found resource requests, peers down, subresources, watches, non-resource paths;
// plus the 404 and 503 messages, request classification and the uniform C36 split. Servers from
// proxy-core/test/routing-conformance-fixtures.ts; sockets are covered by proxy-core/test/conformance-*.test.ts.
import { describe, expect, it } from 'vitest';
import { NOT_FOUND_MESSAGE } from '../util/status.js';
import { decide, NO_ADDRESS_MESSAGE, PROXY_ERROR_PREFIX } from './decide.js';
import { requestInfo } from './request-info.js';
import { seededRandom } from '../util/seeded-random.js';
import {
  DEVICECLASSES,
  AB,
  rerouted,
  local,
  nonResource,
  decisionInput,
  type RoutingCase,
} from '../../test/routing-conformance-fixtures.js';

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
  {
    id: 'C24 default (P8): /openapi/v2 is one document of every server',
    servers: AB,
    handling: 'A',
    path: '/openapi/v2',
    expected: { outcome: 'discovery-merged', target: null },
  },
  { id: 'C24 faithful: /openapi/v2', servers: AB, handling: 'A', path: '/openapi/v2', faithful: true, expected: nonResource('A') },
  { id: 'C24 faithful: /openapi/v3', servers: AB, handling: 'A', path: '/openapi/v3', faithful: true, expected: nonResource('A') },
  {
    id: 'C24 default (P8): /openapi/v3 is one index of every server',
    servers: AB,
    handling: 'A',
    path: '/openapi/v3',
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: 'C24 faithful: /openapi/v3/apis/G/V only B serves',
    servers: AB,
    handling: 'A',
    path: '/openapi/v3/apis/resource.k8s.io/v1',
    faithful: true,
    expected: nonResource('A'),
  },
  // P8 (the default): one group-version's OpenAPI from a server that serves it.
  {
    id: 'C24 default (P8): /openapi/v3/apis/G/V only B serves',
    servers: AB,
    handling: 'A',
    path: '/openapi/v3/apis/resource.k8s.io/v1',
    expected: rerouted('B'),
  },
  {
    id: 'C24 default (P8): /openapi/v3/apis/G/V A serves',
    servers: AB,
    handling: 'A',
    path: '/openapi/v3/apis/apps/v1',
    expected: nonResource('A'),
  },
];

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
