// A kube-apiserver behind Toxiproxy (Shopify's TCP fault proxy, built by `npm run kube:build`), for
// the link faults nftables cannot make (this kernel has no netem): Toxiproxy listens on the server's
// advertised address — what its lease, the kubernetes endpoints, the port and the load balancer all
// use — and the server binds another address of the test network. Without a toxic the proxy is a
// plain TCP relay (TLS passes through untouched: clients verify the server's own certificate, which
// names every address of the network); a latency toxic delays what crosses it. Toxiproxy's API
// listens on a third address of the network, reached from here through the veth like the servers.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { kubeCache } from './binaries.js';
import type { ApiserverSpec, ControlPlane } from './control-plane.js';
import { startProcess, waitFor, withHostname, type Started } from './processes.js';
import { apiserverFlags } from './server-flags.js';
import { inTestNetwork } from './test-network.js';

const TOXIPROXY_VERSION = 'v2.5.0';
const API_PORT = 8474;

/** The toxiproxy-server `npm run kube:build` built, or why there is none. */
export function toxiproxyBinary(): { path?: string; missing?: string } {
  try {
    const manifest = JSON.parse(readFileSync(join(kubeCache, 'manifest.json'), 'utf8')) as {
      binaries?: { name: string; version: string; path: string }[];
    };
    const entry = manifest.binaries?.find((b) => b.name === 'toxiproxy' && b.version === TOXIPROXY_VERSION);
    if (entry && existsSync(entry.path)) return { path: entry.path };
  } catch {
    // no manifest: said below
  }
  return { missing: `no toxiproxy-server ${TOXIPROXY_VERSION} in ${kubeCache}: build it with \`npm run kube:build\`` };
}

export interface ProxiedServer {
  readonly host: string;
  /** The advertised address: Toxiproxy's listener. */
  readonly ip: string;
  /** Where the server itself binds. */
  readonly bindIp: string;
  readonly url: string;
  readonly process: Started;
  /** Adds `ms` of latency to everything the server sends (Toxiproxy's downstream), as `netem delay` on the server's link would. */
  delay(ms: number): Promise<void>;
  /** Removes the delay. */
  heal(): Promise<void>;
  /** Stops the server and Toxiproxy. */
  close(): Promise<void>;
}

/**
 * Starts Toxiproxy relaying `ip`:`cp.port` to `bindIp`:`cp.port`, then kube-apiserver `spec` bound on
 * `bindIp` and advertising `ip`; resolves once the server answers ready through the proxy and is in
 * the identity leases and the kubernetes endpoints.
 */
export async function startBehindToxiproxy(
  cp: ControlPlane,
  spec: ApiserverSpec,
  addresses: { ip: string; bindIp: string; apiIp: string },
): Promise<ProxiedServer> {
  const binary = toxiproxyBinary();
  if (!binary.path) throw new Error(binary.missing);
  const { ip, bindIp, apiIp } = addresses;
  const api = `http://${apiIp}:${API_PORT}`;
  const proxyName = spec.host;
  const tp = inTestNetwork(binary.path, ['-host', apiIp, '-port', String(API_PORT)]);
  const toxiproxy = startProcess(tp.command, tp.args, join(cp.dir, 'toxiproxy.log'));
  const call = async (method: string, path: string, body?: unknown): Promise<number> => {
    const res = await request(`${api}${path}`, {
      method: method as 'GET',
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300 && res.statusCode !== 404) throw new Error(`toxiproxy ${method} ${path}: ${res.statusCode} ${text}`);
    return res.statusCode;
  };
  let server: Started | undefined;
  try {
    await waitFor(
      'toxiproxy answers',
      async () => ((await call('GET', '/version')) === 200 ? true : undefined),
      30_000,
      () => (toxiproxy.child.exitCode !== null ? `exited ${toxiproxy.child.exitCode}:\n${toxiproxy.tail()}` : undefined),
    );
    await call('POST', '/proxies', { name: proxyName, listen: `${ip}:${cp.port}`, upstream: `${bindIp}:${cp.port}`, enabled: true });

    const binaryOfRelease = cp.binaries.apiservers.get(spec.release);
    if (!binaryOfRelease) throw new Error(`no kube-apiserver ${spec.release} was built`);
    const flags = apiserverFlags(spec, {
      address: ip,
      port: cp.port,
      etcdUrl: cp.etcdUrl,
      certDir: join(cp.dir, spec.host),
      files: cp.pki.files,
    }).map((f) => (f.startsWith('--bind-address=') ? `--bind-address=${bindIp}` : f));
    const hosted = withHostname(spec.host, binaryOfRelease, flags);
    const { command, args } = inTestNetwork(hosted.command, hosted.args);
    server = startProcess(command, args, join(cp.dir, `${spec.host}.log`));
    const started = server;
    const url = `https://${ip}:${cp.port}`;
    const agent = new Agent({ connect: { ca: cp.pki.caPem } });
    try {
      await waitFor(
        `kube-apiserver ${spec.release} on ${spec.host} (${url} through Toxiproxy, bound on ${bindIp}) ready`,
        async () => {
          const res = await request(`${url}/readyz`, { dispatcher: agent, headers: { authorization: `Bearer ${cp.pki.adminToken}` } });
          await res.body.text();
          return res.statusCode === 200 ? true : undefined;
        },
        180_000,
        () => (started.child.exitCode !== null ? `exited ${started.child.exitCode}:\n${started.tail()}` : undefined),
      );
    } finally {
      await agent.close();
    }
    // What peer discovery reads: its identity lease, and its advertised address in default/kubernetes.
    await waitFor(
      `${spec.host} in the identity leases and the kubernetes endpoints`,
      async () => {
        const eps = (await cp.call(cp.servers[0]?.spec.host ?? '', '/api/v1/namespaces/default/endpoints/kubernetes')).json() as {
          subsets?: { addresses?: { ip: string }[] }[];
        };
        const listed = (eps.subsets ?? []).some((x) => (x.addresses ?? []).some((a) => a.ip === ip));
        return listed && (await cp.leaseNames()).has(spec.host) ? true : undefined;
      },
      60_000,
    );
    return {
      host: spec.host,
      ip,
      bindIp,
      url,
      process: started,
      async delay(ms) {
        await call('POST', `/proxies/${proxyName}/toxics`, {
          name: 'delay',
          type: 'latency',
          stream: 'downstream',
          toxicity: 1,
          attributes: { latency: ms, jitter: 0 },
        });
      },
      async heal() {
        await call('DELETE', `/proxies/${proxyName}/toxics/delay`);
      },
      async close() {
        await started.stop(10_000);
        await toxiproxy.stop(5_000);
      },
    };
  } catch (err) {
    await server?.stop(5_000);
    await toxiproxy.stop(5_000);
    throw err;
  }
}
