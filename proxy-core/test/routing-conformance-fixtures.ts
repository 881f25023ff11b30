// Shared setup for the routing-core conformance tests (proxy-core/engine/routing/conformance-*.test.ts):
// servers A, B, C, D and the CRD W exactly as §7 of docs/mixed-version-proxy-rules.md builds them,
// their route tables and `/apis` documents, peer views, and the shape of one routing case.
import type { HealthState } from '../contract/servers.js';
import type { APIGroupDiscovery, APIGroupDiscoveryList, GVR } from '../engine/discovery/types.js';
import { REROUTE_HEADERS, type Decision, type DecisionInput, type ServerView } from '../engine/routing/decide.js';
import { requestInfo } from '../engine/routing/request-info.js';
import { buildRouteTable, type RouteTable } from '../engine/routing/route-table.js';

// ---- §7 servers -------------------------------------------------------------------------------

export interface ResourceSpec {
  readonly resource: string;
  readonly subresources?: readonly string[];
  readonly verbs?: readonly string[];
}
export type ServerSpec = ReadonlyArray<{ readonly group: string; readonly version: string; readonly resources: readonly ResourceSpec[] }>;

export const W_GROUP_VERSION = 'example.com/v1';
export const A_SPEC: ServerSpec = [
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
export const DEVICECLASSES_V1 = { group: 'resource.k8s.io', version: 'v1', resources: [{ resource: 'deviceclasses' }] };
export const SPECS: Record<string, ServerSpec> = {
  A: A_SPEC,
  B: [...A_SPEC, DEVICECLASSES_V1, { group: 'resource.k8s.io', version: 'v1beta1', resources: [{ resource: 'resourceclaims' }] }],
  C: [...A_SPEC, { group: 'resource.k8s.io', version: 'v1beta2', resources: [{ resource: 'resourceclaims' }] }],
  D: [...A_SPEC, DEVICECLASSES_V1],
  // C14: A with v1 pods switched off by runtime-config.
  "A'": A_SPEC.map((gv) => (gv.group === '' ? { ...gv, resources: gv.resources.filter((r) => r.resource !== 'pods') } : gv)),
};

export function gvrsOf(spec: ServerSpec): GVR[] {
  return spec.flatMap((gv) => gv.resources.map((r) => ({ group: gv.group, version: gv.version, resource: r.resource })));
}

/** A server's own `/apis` (profile=nopeer): every non-core group, versions in listed order. */
export function apisDocument(spec: ServerSpec, verbsOverride: Record<string, readonly string[]> = {}): APIGroupDiscoveryList {
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

export function tableOf(servers: readonly string[], absent: readonly string[] = []): RouteTable {
  return buildRouteTable(
    servers.map((name) => ({
      name,
      gvrs: absent.includes(name) ? undefined : gvrsOf(SPECS[name] as ServerSpec),
      excludedGroupVersions: [W_GROUP_VERSION],
    })),
  );
}

export interface ServerFacts {
  readonly health: HealthState;
  readonly address: boolean;
  readonly lastError?: string;
}
export function serverView(overrides: Record<string, Partial<ServerFacts>> = {}): ServerView {
  const facts = (n: string): ServerFacts => ({ health: 'ready', address: true, ...overrides[n] });
  return { health: (n) => facts(n).health, hasAddress: (n) => facts(n).address, lastError: (n) => facts(n).lastError };
}

// ---- routing decisions ------------------------------------------------------------------------

export interface RoutingCase {
  readonly id: string;
  readonly servers: readonly string[];
  readonly handling: string;
  readonly method?: string;
  readonly path: string;
  readonly query?: string;
  readonly peerProxied?: string;
  readonly accept?: string;
  readonly peers?: Record<string, Partial<ServerFacts>>;
  /** Servers whose discovery is not in the peer cache (down while it was rebuilt). */
  readonly absent?: readonly string[];
  /** `--faithful`: the servers' own MVP exactly (rule P8 off). */
  readonly faithful?: boolean;
  readonly expected: Decision | ((d: Decision) => void);
}

export const DEVICECLASSES = '/apis/resource.k8s.io/v1/deviceclasses';
export const AB = ['A', 'B'];
export const rerouted = (target: string, candidates = [target]): Decision => ({
  outcome: 'rerouted',
  target,
  candidates,
  headers: REROUTE_HEADERS,
});
export const local = (target: string): Decision => ({ outcome: 'local', target, reason: 'serves' });
export const nonResource = (target: string): Decision => ({ outcome: 'non-resource', target });

export function decisionInput(c: RoutingCase, random?: () => number): DecisionInput {
  return {
    info: requestInfo(c.method ?? 'GET', c.path, c.query ?? ''),
    handling: c.handling,
    table: tableOf(c.servers, c.absent),
    peers: serverView(c.peers),
    peerProxiedHeader: c.peerProxied,
    accept: c.accept,
    discoveryMode: 'peer-aggregated',
    ...(c.faithful ? { faithful: true } : {}),
    ...(random ? { random } : {}),
  };
}
