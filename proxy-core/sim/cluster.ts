// The simulated control plane: several simulated kube-apiservers of (possibly) different releases
// on loopback, one shared object store, one CA and bearer token, and a kubeconfig for all of them.
// In HTTPS mode the servers accept the token or a client certificate signed by the cluster CA.
import { randomBytes } from 'node:crypto';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
  type CertificateAuthority,
  type PemPair,
} from '../engine/tls/certs.js';
import type { ReleaseCatalog } from '../engine/releases/index.js';
import { SimAuditLog, simAuditLogFile } from './apiserver/audit-log.js';
import { servedIndex } from './apiserver/context.js';
import { writeKubernetesEndpoints } from './apiserver/identity.js';
import { SimApiServer, type SimRequestRecord } from './apiserver/server.js';
import { renderKubeconfig } from './kubeconfig.js';
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
  /**
   * HTTPS mode: what authenticates a request. Default: the bearer token and client certificates
   * signed by the cluster CA (like kube-apiserver with --token-auth-file and --client-ca-file).
   */
  auth?: { readonly token?: boolean; readonly clientCerts?: boolean };
  /** Identity lease duration of every server (default 3600 s); short in tests of expiring leases. */
  leaseDurationSeconds?: number;
  /**
   * The host the servers advertise (URLs, leases, endpoints) instead of the one they listen on: an
   * address the test can reach only through a proxy that maps it back. Its IP is in the certificate.
   */
  advertiseHost?: string;
  /**
   * A folder where each server appends an audit log, `apiserver-NAME-audit.log` (audit.k8s.io/v1
   * events at level Metadata, apiserver/audit-log.ts); off when absent.
   */
  auditLogDir?: string;
}

/** The user block of a kubeconfig: the cluster's token (default), or another user. */
export interface SimKubeconfigOptions {
  readonly user?: Record<string, unknown>;
}

/** How to reach one simulated server: its URL, the cluster CA and the token (HTTPS mode). */
export interface SimServerConfig {
  readonly name: string;
  readonly url: string;
  readonly source: 'sim';
  readonly ca?: string;
  readonly bearerToken?: () => string;
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
  /** What a core needs to reach every server now in the cluster (the shape of the core's server config). */
  serverConfigs(): SimServerConfig[];
  /** Kubeconfig YAML: one cluster, context and user per server (context = server name). */
  kubeconfig(options?: SimKubeconfigOptions): string;
  /** A client certificate signed by the cluster CA: CN = user name, O = groups (HTTPS mode). */
  issueClientCertificate(user: string, groups?: readonly string[]): Promise<PemPair>;
  /** Starts one more server (a new apiserver joining the cluster), with its lease and endpoints. */
  addServer(name: string, release: ReleaseCatalog): Promise<SimServer>;
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
      store.create(
        { group: '', resource: 'namespaces' },
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
          spec: { finalizers: ['kubernetes'] },
          status: { phase: 'Active' },
        },
      );
    }
  }
  if (servesAnywhere(releases, { group: '', resource: 'services' })) {
    store.create(
      { group: '', resource: 'services' },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          type: 'ClusterIP',
          clusterIP: '10.96.0.1',
          clusterIPs: ['10.96.0.1'],
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
          sessionAffinity: 'None',
        },
      },
    );
  }
}

export async function startSimCluster(options: SimClusterOptions): Promise<SimCluster> {
  const { releases } = options;
  const names = serverNames(options);
  const host = options.host ?? '127.0.0.1';
  const basePort = options.basePort ?? 0;
  const secrets = options.http ? undefined : await clusterSecrets(host, options.advertiseHost);
  const { ca, token, authority } = secrets ?? {};
  const shared = sharedServerOptions(options, secrets);
  const advertised = options.advertiseHost ?? host;

  const store = new ObjectStore();
  seedStore(store, releases);
  const eventListeners = new Set<(e: SimEvent) => void>();
  const requestListeners = new Set<(server: string, req: SimRequestRecord) => void>();
  const servers: SimApiServer[] = [];

  const onStateChange = (server: SimApiServer, state: SimServerState) => {
    writeEndpoints(store, servers, advertised);
    const event: SimEvent = { type: 'server-state', at: Date.now(), server: server.name, state, release: server.release().release };
    for (const l of eventListeners) l(event);
  };
  const onRequest = (server: string, req: SimRequestRecord) => {
    for (const l of requestListeners) l(server, req);
  };

  const auditLogs: SimAuditLog[] = [];
  const auditLogOf = (name: string) => {
    if (!options.auditLogDir) return undefined;
    const log = new SimAuditLog(simAuditLogFile(options.auditLogDir, name));
    auditLogs.push(log);
    return log;
  };
  const newServer = (name: string, release: ReleaseCatalog, port: number) => {
    const auditLog = auditLogOf(name);
    return new SimApiServer({
      name,
      release,
      store,
      host,
      port,
      ...shared,
      onStateChange,
      onRequest,
      ...(auditLog ? { auditLog } : {}),
    });
  };
  releases.forEach((release, i) => {
    servers.push(newServer(names[i] as string, release, basePort === 0 ? 0 : basePort + i));
  });
  await startAll(servers);

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
    serverConfigs: () => serverConfigsOf(servers, ca, token),
    kubeconfig: (kc = {}) => renderKubeconfig(servers, ca, kc.user ?? (token ? { token } : {})),
    async issueClientCertificate(user, groups = []) {
      if (!authority) throw new Error('a simulated cluster in HTTP mode has no CA to sign client certificates');
      return issueClientCertificate(authority, { commonName: user, organizations: groups });
    },
    async addServer(name, release) {
      if (byName.has(name)) throw new Error(`a simulated apiserver named "${name}" already exists`);
      const server = newServer(name, release, basePort === 0 ? 0 : basePort + servers.length);
      servers.push(server);
      byName.set(name, server);
      names.push(name);
      try {
        await server.start();
      } catch (err) {
        servers.splice(servers.indexOf(server), 1);
        byName.delete(name);
        names.splice(names.indexOf(name), 1);
        throw err;
      }
      return server;
    },
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
      await Promise.all(auditLogs.map((l) => l.close()));
      eventListeners.clear();
      requestListeners.clear();
    },
  };
}

/** The server names (default sim-1, sim-2, …), one per release, unique. */
function serverNames(options: SimClusterOptions): string[] {
  const { releases } = options;
  if (releases.length === 0) throw new Error('startSimCluster: at least one release is needed');
  const names = [...(options.names ?? releases.map((_r, i) => `sim-${i + 1}`))];
  if (names.length !== releases.length) throw new Error(`startSimCluster: ${releases.length} releases but ${names.length} names`);
  if (new Set(names).size !== names.length) throw new Error('startSimCluster: server names must be unique');
  return names;
}

/** HTTPS mode: the cluster's CA, the servers' certificate (every name a client may use) and the bearer token. */
async function clusterSecrets(
  host: string,
  advertiseHost: string | undefined,
): Promise<{ tls: PemPair; ca: string; token: string; authority: CertificateAuthority }> {
  const authority = await createCertificateAuthority('peerscope-sim-ca');
  const hosts = [
    ...new Set([
      '127.0.0.1',
      '::1',
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      host,
      ...(advertiseHost ? [advertiseHost] : []),
    ]),
  ];
  const tls = await issueServerCertificate(authority, { hosts });
  return { tls, ca: authority.cert, token: randomBytes(32).toString('base64url'), authority };
}

/** What every server of the cluster is started with: TLS, what authenticates a request, the advertised host, the lease duration. */
function sharedServerOptions(options: SimClusterOptions, secrets: { tls: PemPair; ca: string; token: string } | undefined) {
  const acceptToken = options.auth?.token ?? true;
  const acceptCerts = options.auth?.clientCerts ?? true;
  return {
    ...(secrets ? { tls: secrets.tls } : {}),
    ...(secrets && acceptToken ? { token: secrets.token } : {}),
    ...(secrets && acceptCerts ? { clientCa: secrets.ca } : {}),
    ...(options.advertiseHost ? { advertiseHost: options.advertiseHost } : {}),
    ...(options.leaseDurationSeconds ? { leaseDurationSeconds: options.leaseDurationSeconds } : {}),
  };
}

/** Starts every server; when one cannot start, stops them all. */
async function startAll(servers: readonly SimApiServer[]): Promise<void> {
  try {
    for (const s of servers) await s.start();
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
}

/** default/kubernetes (endpoints and slices, where some server serves them): the ready servers' addresses. */
function writeEndpoints(store: ObjectStore, servers: readonly SimApiServer[], advertised: string): void {
  const current = servers.map((s) => s.release());
  const serves = {
    endpoints: servesAnywhere(current, { group: '', resource: 'endpoints' }),
    endpointSlices: servesAnywhere(current, { group: 'discovery.k8s.io', resource: 'endpointslices' }),
  };
  const ready = servers
    .filter((s) => s.currentState === 'ready')
    .map((s) => ({ serverName: s.name, host: advertised, port: s.listenPort }));
  try {
    writeKubernetesEndpoints(store, ready, serves);
  } catch {
    // Someone deleted or changed the object meanwhile; the next state change rewrites it.
  }
}

/** The servers as the core is given them, with the cluster's CA and token. */
function serverConfigsOf(servers: readonly SimApiServer[], ca: string | undefined, token: string | undefined): SimServerConfig[] {
  return servers.map((s) => ({
    name: s.name,
    url: s.info().url,
    source: 'sim' as const,
    ...(ca ? { ca } : {}),
    ...(token ? { bearerToken: () => token } : {}),
  }));
}
