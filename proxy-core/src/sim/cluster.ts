// The simulated control plane: several simulated kube-apiservers of (possibly) different releases
// on loopback, one shared object store, one CA and bearer token, and a kubeconfig for all of them.
import { randomBytes } from 'node:crypto';
import { stringify as toYaml } from 'yaml';
import { createCertificateAuthority, issueServerCertificate } from '../tls/certs.js';
import type { ReleaseCatalog } from './catalog/model.js';
import { servedIndex } from './apiserver/context.js';
import { writeKubernetesEndpoints } from './apiserver/identity.js';
import { SimApiServer, type SimRequestRecord } from './apiserver/server.js';
import { ObjectStore, type GroupResource } from './store/store.js';
import type { SimEvent, SimServer, SimServerState } from './types.js';

export interface SimClusterOptions {
  /** One release per server, in server order. */
  releases: ReleaseCatalog[];
  /** Server names; default sim-1, sim-2, … */
  names?: string[];
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** 0 (default) = free ports; else server i listens on basePort + i. */
  basePort?: number;
  /** Plain HTTP without authentication instead of HTTPS with a bearer token. */
  http?: boolean;
}

export interface SimCluster {
  readonly servers: readonly SimServer[];
  /** The server of that name; throws on an unknown name. */
  server(name: string): SimServer;
  readonly store: ObjectStore;
  /** CA certificate (PEM) that signed the servers' certificate; undefined in HTTP mode. */
  readonly ca?: string;
  /** Bearer token the servers accept; undefined in HTTP mode. */
  readonly token?: string;
  /** Kubeconfig YAML: one cluster, context and user per server (context = server name). */
  kubeconfig(): string;
  onEvent(listener: (e: SimEvent) => void): () => void;
  onRequest(listener: (server: string, req: SimRequestRecord) => void): () => void;
  close(): Promise<void>;
}

const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function servesAnywhere(releases: readonly ReleaseCatalog[], gr: GroupResource): boolean {
  return releases.some((r) => servedIndex(r).anyVersion(gr.group, gr.resource) !== undefined);
}

/** The objects every cluster starts with: the system namespaces and the kubernetes Service. */
function seedStore(store: ObjectStore, releases: readonly ReleaseCatalog[]): void {
  if (servesAnywhere(releases, { group: '', resource: 'namespaces' })) {
    for (const name of NAMESPACES) {
      store.create({ group: '', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    }
  }
  if (servesAnywhere(releases, { group: '', resource: 'services' })) {
    store.create({ group: '', resource: 'services' }, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }], sessionAffinity: 'None' },
    });
  }
}

export async function startSimCluster(options: SimClusterOptions): Promise<SimCluster> {
  const { releases } = options;
  if (releases.length === 0) throw new Error('startSimCluster: at least one release is needed');
  const names = options.names ?? releases.map((_r, i) => `sim-${i + 1}`);
  if (names.length !== releases.length) throw new Error(`startSimCluster: ${releases.length} releases but ${names.length} names`);
  if (new Set(names).size !== names.length) throw new Error('startSimCluster: server names must be unique');
  const host = options.host ?? '127.0.0.1';
  const basePort = options.basePort ?? 0;

  let tls: { cert: string; key: string } | undefined;
  let ca: string | undefined;
  let token: string | undefined;
  if (!options.http) {
    const authority = await createCertificateAuthority('peerscope-sim-ca');
    const hosts = [...new Set(['127.0.0.1', '::1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', host])];
    tls = await issueServerCertificate(authority, { hosts });
    ca = authority.cert;
    token = randomBytes(32).toString('base64url');
  }

  const store = new ObjectStore();
  seedStore(store, releases);
  const eventListeners = new Set<(e: SimEvent) => void>();
  const requestListeners = new Set<(server: string, req: SimRequestRecord) => void>();
  const servers: SimApiServer[] = [];

  const refreshEndpoints = () => {
    const current = servers.map((s) => s.release());
    const serves = { endpoints: servesAnywhere(current, { group: '', resource: 'endpoints' }), endpointSlices: servesAnywhere(current, { group: 'discovery.k8s.io', resource: 'endpointslices' }) };
    const ready = servers.filter((s) => s.currentState === 'ready').map((s) => ({ serverName: s.name, host, port: s.listenPort }));
    try {
      writeKubernetesEndpoints(store, ready, serves);
    } catch {
      // Someone deleted or changed the object meanwhile; the next state change rewrites it.
    }
  };
  const onStateChange = (server: SimApiServer, state: SimServerState) => {
    refreshEndpoints();
    const event: SimEvent = { type: 'server-state', at: Date.now(), server: server.name, state, release: server.release().release };
    for (const l of eventListeners) l(event);
  };
  const onRequest = (server: string, req: SimRequestRecord) => {
    for (const l of requestListeners) l(server, req);
  };

  releases.forEach((release, i) => {
    servers.push(new SimApiServer({
      name: names[i] as string,
      release,
      store,
      host,
      port: basePort === 0 ? 0 : basePort + i,
      ...(tls ? { tls } : {}),
      ...(token ? { token } : {}),
      onStateChange,
      onRequest,
    }));
  });
  try {
    for (const s of servers) await s.start();
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }

  const byName = new Map(servers.map((s) => [s.name, s]));
  return {
    servers,
    server(name: string): SimServer {
      const s = byName.get(name);
      if (!s) throw new Error(`no simulated apiserver named "${name}"; the cluster has ${names.join(', ')}`);
      return s;
    },
    store,
    ...(ca ? { ca } : {}),
    ...(token ? { token } : {}),
    kubeconfig: () => renderKubeconfig(servers, ca, token),
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onRequest(listener) {
      requestListeners.add(listener);
      return () => requestListeners.delete(listener);
    },
    async close() {
      await Promise.all(servers.map((s) => s.stop()));
      eventListeners.clear();
      requestListeners.clear();
    },
  };
}

function renderKubeconfig(servers: readonly SimServer[], ca: string | undefined, token: string | undefined): string {
  const caData = ca ? Buffer.from(ca).toString('base64') : undefined;
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: servers.map((s) => ({ name: s.name, cluster: { server: s.info().url, ...(caData ? { 'certificate-authority-data': caData } : {}) } })),
    contexts: servers.map((s) => ({ name: s.name, context: { cluster: s.name, user: s.name, namespace: 'default' } })),
    users: servers.map((s) => ({ name: s.name, user: token ? { token } : {} })),
    'current-context': servers[0]?.name ?? '',
    preferences: {},
  });
}
