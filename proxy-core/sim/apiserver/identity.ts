// What a kube-apiserver writes about itself: its identity Lease (kube-system/apiserver-<name>) and,
// for the cluster, the default/kubernetes Endpoints and EndpointSlice listing the ready servers.
import type { ObjectStore, GroupResource, KubeObject } from '../store/store.js';

const LEASES: GroupResource = { group: 'coordination.k8s.io', resource: 'leases' };
const ENDPOINTS: GroupResource = { group: '', resource: 'endpoints' };
const ENDPOINT_SLICES: GroupResource = { group: 'discovery.k8s.io', resource: 'endpointslices' };

export const IDENTITY_LEASE_DURATION_SECONDS = 3600;

function microTime(date = new Date()): string {
  return date.toISOString().replace('Z', '000Z');
}

function upsert(
  store: ObjectStore,
  gr: GroupResource,
  object: Record<string, unknown> & { metadata: { name: string; namespace?: string; [field: string]: unknown } },
): KubeObject {
  const current = store.get(gr, object.metadata.namespace ?? '', object.metadata.name);
  if (!current) return store.create(gr, object);
  return store.update(gr, { ...object, metadata: { ...current.metadata, ...object.metadata } });
}

export interface LeaseIdentity {
  readonly serverName: string;
  readonly holderIdentity: string;
  readonly host: string;
  readonly port: number;
  /** Default IDENTITY_LEASE_DURATION_SECONDS. */
  readonly leaseDurationSeconds?: number;
}

/** The name of server `serverName`'s identity lease in kube-system. */
export function identityLeaseName(serverName: string): string {
  return `apiserver-${serverName}`;
}

/** Creates or renews the identity lease (a new holderIdentity marks a restart); says which it did. */
export function writeIdentityLease(store: ObjectStore, id: LeaseIdentity, acquired: boolean): 'create' | 'update' {
  const leaseName = identityLeaseName(id.serverName);
  const current = store.get(LEASES, 'kube-system', leaseName);
  const verb = current ? 'update' : 'create';
  const now = microTime();
  const spec: Record<string, unknown> = {
    ...(current?.spec as Record<string, unknown> | undefined),
    holderIdentity: id.holderIdentity,
    leaseDurationSeconds: id.leaseDurationSeconds ?? IDENTITY_LEASE_DURATION_SECONDS,
    renewTime: now,
  };
  // kube-apiserver's identity lease controller sets no acquireTime: a restart shows as a new holderIdentity.
  delete spec.acquireTime;
  void acquired;
  upsert(store, LEASES, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: leaseName,
      namespace: 'kube-system',
      labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': id.serverName },
      annotations: { 'kubernetes.io/peer-advertise-address': `${id.host}:${id.port}` },
    },
    spec,
  });
  return verb;
}

export interface ReadyEndpoint {
  readonly serverName: string;
  readonly host: string;
  readonly port: number;
}

/**
 * Rewrites default/kubernetes Endpoints (one subset per server, since their ports differ) and the
 * EndpointSlice (one endpoint and one named port per server). Skips a kind the cluster does not serve.
 */
export function writeKubernetesEndpoints(
  store: ObjectStore,
  ready: readonly ReadyEndpoint[],
  serves: { endpoints: boolean; endpointSlices: boolean },
): void {
  const sorted = [...ready].sort((a, b) => a.serverName.localeCompare(b.serverName));
  if (serves.endpoints) {
    upsert(store, ENDPOINTS, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: sorted.map((s) => ({ addresses: [{ ip: s.host }], ports: [{ name: 'https', port: s.port, protocol: 'TCP' }] })),
    });
  }
  if (serves.endpointSlices) {
    upsert(store, ENDPOINT_SLICES, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: 'IPv4',
      endpoints: sorted.map((s) => ({ addresses: [s.host], conditions: { ready: true } })),
      ports: sorted.map((s) => ({ name: `https-${s.serverName}`, port: s.port, protocol: 'TCP' })),
    });
  }
}
