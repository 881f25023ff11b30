// A real control plane on this machine for the tests: one etcd and N kube-apiservers sharing it, in a
// temporary directory. Each apiserver is a machine of its own as far as Kubernetes can tell: its own
// IP, all on one secure port (real servers of a cluster share it, and the endpoints reconciler lists
// them as one subset), and its own hostname (kube-apiserver names its identity lease after the
// hostname). The IPs live in a network namespace of the tests' own (test-network.ts), reached from
// here through a veth pair: kube-apiserver refuses a 127.x advertise address with its endpoints
// reconciler ("may not be in the loopback range"), and servers sharing 127.0.0.1 on several ports
// would share one identity and fight over one endpoints port (docs/decisions.md).
// Servers start in parallel; a start returns once /readyz is 200.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { kubeBinaries, type KubeBinaries } from './binaries.js';
import { writePki, type ControlPlanePki } from './pki.js';
import { portFreeOnAll, startProcess, waitFor, withHostname, type Started } from './processes.js';
import { ensureTestNetwork, HOST_IP, inTestNetwork } from './test-network.js';
import { apiserverFlags, etcdArgs, type ApiserverSpec } from './server-flags.js';

export type { ApiserverSpec, OwnMvp } from './server-flags.js';

/**
 * How one server is placed beyond its spec (all optional, for the fault tests): its own serving
 * certificate (a rotated one, one of another CA, one that does not name its address), the CA bundle
 * and TLS name the harness verifies it with while waiting for it, and an advertised address other
 * than its own (what its identity lease and the default/kubernetes endpoints then name).
 */
export interface ServerPlacement {
  readonly serving?: { readonly cert: string; readonly key: string };
  /** PEM bundle that verifies its certificate (default: the cluster CA). */
  readonly trust?: string;
  /** The TLS name the harness checks its certificate against (default: its IP). */
  readonly servername?: string;
  /** --advertise-address (default: its own address). */
  readonly advertiseAddress?: string;
}

export interface KubeApiserver {
  readonly spec: ApiserverSpec;
  readonly placement?: ServerPlacement;
  readonly ip: string;
  readonly port: number;
  readonly url: string;
  readonly process: Started;
  /** When /readyz first answered 200 (Date.now()). */
  readonly readyAt: number;
  /** SIGTERM by PID, SIGKILL after the grace. */
  stop(graceMs?: number): Promise<void>;
}

export interface ControlPlane {
  readonly dir: string;
  readonly pki: ControlPlanePki;
  readonly binaries: KubeBinaries;
  readonly etcdUrl: string;
  readonly port: number;
  /** Live servers, in start order (a stopped one leaves the list). */
  readonly servers: KubeApiserver[];
  server(host: string): KubeApiserver;
  /** Starts another server; `ip` reuses a stopped server's address (a machine replaced in place). */
  start(spec: ApiserverSpec, ip?: string, placement?: ServerPlacement): Promise<KubeApiserver>;
  /** Stops a server by PID (SIGTERM, SIGKILL after `graceMs`, default 30 s as the kubelet) and removes it from `servers`. */
  stop(host: string, graceMs?: number): Promise<void>;
  /** A kubeconfig whose server is `host`'s; user: admin client certificate, admin token or a token RBAC allows little. */
  kubeconfig(host: string, options?: { user?: 'cert' | 'token' | 'viewer'; ca?: 'right' | 'wrong'; name?: string }): string;
  /** A GET/POST/… straight to one server as the admin (token). */
  /** Resolves once every running server has its identity lease and its address in default/kubernetes: what peer discovery reads. */
  settled(): Promise<void>;
  /** The identity lease name of each running server's hostname (apiserver-<hash of the hostname>). */
  leaseNames(): Promise<Map<string, string>>;
  call(
    host: string,
    path: string,
    options?: { method?: string; body?: unknown; headers?: Record<string, string> },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read the answers' JSON field by field
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: () => any }>;
  close(): Promise<void>;
}

/** The first `n` server addresses in the tests' network namespace (198.18.0.11 …). */
export function serverIps(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `198.18.0.${11 + i}`);
}

export interface ControlPlaneOptions {
  readonly servers: readonly ApiserverSpec[];
  /** Loopback IPs to hold free beside the servers' (for servers started later on new machines). */
  readonly spareIps?: number;
  /** Identity lease duration in seconds (kube-apiserver's default is 3600). */
  readonly identityLeaseSeconds?: number;
  /** Placement of the first servers, by host (see ServerPlacement). */
  readonly placements?: Readonly<Record<string, ServerPlacement>>;
}

/** `flags` with each `--name=` flag named in `set` given that value instead. */
function withFlags(flags: readonly string[], set: Readonly<Record<string, string | undefined>>): string[] {
  return flags.map((f) => {
    const name = f.slice(0, f.indexOf('=') + 1);
    const value = name ? set[name] : undefined;
    return value === undefined ? f : `${name}${value}`;
  });
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const binaries = kubeBinaries;
  if (!binaries) throw new Error('the kube binaries are missing: npm run kube:build');
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-kube-'));
  const ips = serverIps(options.servers.length + (options.spareIps ?? 0));
  ensureTestNetwork(ips);
  const pki = await writePki(dir, ips);
  // Nothing but this file's servers listens in the namespace: a port free here is free there.
  const port = await portFreeOnAll(['127.0.0.1']);
  const [clientPort, peerPort] = [await portFreeOnAll([HOST_IP]), await portFreeOnAll([HOST_IP])];
  const etcdUrl = `http://${HOST_IP}:${clientPort}`;
  const etcd = startProcess(binaries.etcd, etcdArgs(dir, etcdUrl, `http://${HOST_IP}:${peerPort}`), join(dir, 'etcd.log'));
  const agent = new Agent({ connect: { ca: pki.caPem }, connections: 8 });
  const servers: KubeApiserver[] = [];
  const all: KubeApiserver[] = [];
  const usedIps = new Set<string>();

  const call: ControlPlane['call'] = async (host, path, o = {}) => {
    const s = plane.server(host);
    const res = await request(`${s.url}${path}`, {
      method: (o.method ?? 'GET') as 'GET',
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${pki.adminToken}`,
        accept: 'application/json',
        ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...o.headers,
      },
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
  };

  const startServer = async (spec: ApiserverSpec, ip?: string, placement?: ServerPlacement): Promise<KubeApiserver> => {
    const address = ip ?? ips.find((i) => !usedIps.has(i));
    if (!address) throw new Error('no address left in the test network for another apiserver: raise spareIps');
    usedIps.add(address);
    const binary = binaries.apiservers.get(spec.release);
    if (!binary) throw new Error(`no kube-apiserver ${spec.release} was built (have ${[...binaries.apiservers.keys()].join(', ')})`);
    const certDir = join(dir, spec.host);
    let flags = apiserverFlags(spec, { address, port, etcdUrl, certDir, files: pki.files });
    if (placement?.serving || placement?.advertiseAddress) {
      // Written per start: a server restarted with another certificate must not read the last one's.
      const serving = placement.serving;
      const stamp = `${spec.host}-${Date.now()}`;
      if (serving) {
        writeFileSync(join(dir, `${stamp}.crt`), serving.cert, { mode: 0o644 });
        writeFileSync(join(dir, `${stamp}.key`), serving.key, { mode: 0o600 });
      }
      flags = withFlags(flags, {
        '--tls-cert-file=': serving ? join(dir, `${stamp}.crt`) : undefined,
        '--tls-private-key-file=': serving ? join(dir, `${stamp}.key`) : undefined,
        '--advertise-address=': placement.advertiseAddress,
      });
    }
    // Its own agent when it is verified with another bundle or name than the cluster CA and its IP.
    const ownAgent =
      placement?.trust || placement?.servername
        ? new Agent({
            connect: { ca: placement.trust ?? pki.caPem, ...(placement.servername ? { servername: placement.servername } : {}) },
          })
        : undefined;
    const hosted = withHostname(spec.host, binary, flags);
    const { command, args } = inTestNetwork(hosted.command, hosted.args);
    const env = {
      ...process.env,
      ...(options.identityLeaseSeconds ? { PEERSCOPE_IDENTITY_LEASE_SECONDS: String(options.identityLeaseSeconds) } : {}),
    };
    const proc = startProcess(command, args, join(dir, `${spec.host}.log`), env);
    const url = `https://${address}:${port}`;
    await waitFor(
      `kube-apiserver ${spec.release} on ${spec.host} (${url}) ready`,
      async () => {
        const res = await request(`${url}/readyz`, {
          dispatcher: ownAgent ?? agent,
          headers: { authorization: `Bearer ${pki.adminToken}` },
        });
        await res.body.text();
        return res.statusCode === 200 ? true : undefined;
      },
      180_000,
      () => (proc.child.exitCode !== null ? `exited ${proc.child.exitCode}:\n${proc.tail()}` : undefined),
    ).finally(() => ownAgent?.close());
    const server: KubeApiserver = {
      spec,
      ...(placement ? { placement } : {}),
      ip: address,
      port,
      url,
      process: proc,
      readyAt: Date.now(),
      stop: async (graceMs?: number) => {
        await proc.stop(graceMs);
        const i = servers.indexOf(server);
        if (i >= 0) servers.splice(i, 1);
      },
    };
    servers.push(server);
    all.push(server);
    return server;
  };

  // The harness's own reads go to a server its agent verifies: the cluster CA's certificate naming its IP.
  const plainServer = (): KubeApiserver =>
    servers.find((s) => !s.placement?.trust && !s.placement?.servername) ?? (servers[0] as KubeApiserver);

  const plane: ControlPlane = {
    dir,
    pki,
    binaries,
    etcdUrl,
    port,
    servers,
    server(host) {
      const s = servers.find((x) => x.spec.host === host);
      if (!s) throw new Error(`no running apiserver on ${host} (running: ${servers.map((x) => x.spec.host).join(', ') || 'none'})`);
      return s;
    },
    async start(spec, ip, placement) {
      const server = await startServer(spec, ip, placement);
      await plane.settled();
      return server;
    },
    stop: (host, graceMs) => plane.server(host).stop(graceMs),
    kubeconfig(host, o = {}) {
      const s = all.find((x) => x.spec.host === host);
      if (!s) throw new Error(`no apiserver ${host}`);
      const user = o.user ?? 'cert';
      const f = pki.files;
      const userBody =
        user === 'cert'
          ? `    client-certificate: ${f.admin.cert}\n    client-key: ${f.admin.key}\n`
          : `    token: ${user === 'token' ? pki.adminToken : pki.viewerToken}\n`;
      const text = `apiVersion: v1
kind: Config
clusters:
- name: kube-test
  cluster:
    server: ${s.url}
    certificate-authority: ${o.ca === 'wrong' ? f.wrongCa : f.ca}
users:
- name: ${user}
  user:
${userBody}contexts:
- name: kube-test
  context: {cluster: kube-test, user: ${user}}
current-context: kube-test
`;
      const path = join(dir, `${o.name ?? `${host}-${user}-${o.ca ?? 'right'}`}.kubeconfig`);
      writeFileSync(path, text, { mode: 0o600 });
      return path;
    },
    call,
    async settled() {
      // A server is ready before its endpoints reconciler and lease controller have written.
      await waitFor(
        'every server in the identity leases and the kubernetes endpoints',
        async () => {
          const names = await plane.leaseNames();
          const eps = (await call(plainServer().spec.host, '/api/v1/namespaces/default/endpoints/kubernetes')).json() as {
            subsets?: { addresses?: { ip: string }[] }[];
          };
          const ips = new Set((eps.subsets ?? []).flatMap((x) => (x.addresses ?? []).map((a) => a.ip)));
          return servers.every((s) => names.has(s.spec.host) && ips.has(s.placement?.advertiseAddress ?? s.ip)) ? true : undefined;
        },
        60_000,
      );
    },
    async leaseNames() {
      if (servers.length === 0) throw new Error('no apiserver runs');
      const host = plainServer().spec.host;
      const list = (
        await call(
          host,
          '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver',
        )
      ).json() as { items: { metadata: { name: string; labels: Record<string, string> } }[] };
      return new Map(list.items.map((l) => [l.metadata.labels['kubernetes.io/hostname'] as string, l.metadata.name]));
    },
    async close() {
      await Promise.all(servers.slice().map((s) => s.stop()));
      await etcd.stop(10_000);
      await agent.close();
      if (!process.env.PEERSCOPE_KUBE_KEEP) rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await waitFor(
      'etcd healthy',
      async () => {
        const res = await request(`${etcdUrl}/health`);
        return (await res.body.text()).includes('"true"') ? true : undefined;
      },
      30_000,
      () => (etcd.child.exitCode !== null ? `exited ${etcd.child.exitCode}:\n${etcd.tail()}` : undefined),
    );
    await Promise.all(options.servers.map((s) => startServer(s, undefined, options.placements?.[s.host])));
    await plane.settled();
  } catch (err) {
    await plane.close().catch(() => undefined);
    throw err;
  }
  return plane;
}
