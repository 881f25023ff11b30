// Conformance cases C25–C47 (docs/mixed-version-proxy-rules.md §7) as the pure routing core decides them:
// `/apis` negotiation (merged or own), versions only some servers serve, several candidates, CRDs,
// identity headers and the pinned handling server. C42 and C48 are answered before any decision.
import { describe, expect, it } from 'vitest';
import { MEDIA } from '../discovery/types.js';
import { decide } from './decide.js';
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
    expected: { outcome: 'discovery-own', target: 'A', accept: undefined },
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
    id: "C30 faithful: /apis with application/json: A's legacy list",
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: 'application/json',
    faithful: true,
    expected: nonResource('A'),
  },
  {
    id: "C31 faithful: legacy group-version: A's own (404)",
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1',
    accept: MEDIA.v2Json,
    faithful: true,
    expected: nonResource('A'),
  },
  // P8 (the default): legacy /apis merged across servers; a group-version only B serves answered by B.
  {
    id: 'C30 default (P8): /apis with application/json: merged legacy list',
    servers: AB,
    handling: 'A',
    path: '/apis',
    accept: 'application/json',
    expected: { outcome: 'discovery-merged', target: null },
  },
  {
    id: 'C31 default (P8): legacy group-version only B serves: rerouted to B',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io/v1',
    accept: MEDIA.v2Json,
    expected: rerouted('B'),
  },
  {
    id: 'C31 default (P8): legacy group only B serves: rerouted to B',
    servers: AB,
    handling: 'A',
    path: '/apis/resource.k8s.io',
    expected: rerouted('B'),
  },
  { id: "C32 /api/v1: A's own", servers: AB, handling: 'A', path: '/api/v1', expected: nonResource('A') },
  {
    id: "C32 /api with v2 Accept: A's own",
    servers: AB,
    handling: 'A',
    path: '/api',
    accept: MEDIA.v2Json,
    expected: { outcome: 'discovery-own', target: 'A', accept: undefined },
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
  // covered by the host-check step (proxy/steps/admit.ts), the policy tests and the integration tests.
];

describe('§7 conformance: routing decisions', () => {
  it.each(routingCases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const d = decide(decisionInput(c, () => 0));
    if (typeof c.expected === 'function') c.expected(d);
    else expect(d).toEqual(c.expected);
  });
});
