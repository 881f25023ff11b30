// Finds every apiserver of a cluster from inside it, as kube-apiserver's own peer discovery does
// (rule §4.1–4.3, P2): the identity Leases in kube-system (label
// apiserver.kubernetes.io/identity=kube-apiserver, address in the kubernetes.io/peer-advertise-address
// annotation) and the addresses of the default/kubernetes Endpoints (or, where those cannot be read,
// its EndpointSlices). Where RBAC forbids a read it says so, and with nothing found it falls back to
// the kubeconfig's own server. Run again on a period, it also says which servers left the cluster:
// a lease whose expiry has passed while its address left the endpoints.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { describeError } from './server-reader.js';
import type { ServerReader } from './server-config.js';

export interface FoundServer {
  /** The lease name (the server ID) when known, else HOST:PORT. */
  readonly name: string;
  readonly url: string;
  readonly source: 'lease' | 'endpoints' | 'kubeconfig';
  /** HOST:PORT the server was found at. */
  readonly address: string;
  readonly lease?: {
    readonly holderIdentity: string;
    readonly renewTime?: string;
    /** renewTime + leaseDurationSeconds is past (its address is still in the endpoints, or they could not be read). */
    readonly expired: boolean;
    readonly hostname?: string;
  };
}

export interface FindResult {
  readonly servers: FoundServer[];
  /** What could not be read, for the operator (e.g. RBAC). */
  readonly warnings: string[];
  /** Which lists were read: a server can only be judged gone by a list that was read. */
  readonly read: { readonly leases: boolean; readonly endpoints: boolean };
  /** Servers whose lease expired and whose address left the endpoints: gone (lease name → where it was, why, its host name). */
  readonly expired: ReadonlyMap<string, { readonly url: string; readonly reason: string; readonly hostname?: string }>;
  /** The cluster answered 401: the credentials were refused (the message says by whom). */
  readonly unauthorized?: string;
  /** A server's certificate was not trusted (the kubeconfig's CA did not sign it): which server, why. */
  readonly untrusted?: string;
}

/** Node's codes for a certificate that does not verify against the CA given. */
const TLS_UNTRUSTED =
  /\b(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID|CERT_HAS_EXPIRED)\b/;

const LEASES =
  '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver';
const ENDPOINTS = '/api/v1/namespaces/default/endpoints/kubernetes';
const ENDPOINT_SLICES =
  '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes';

interface Lease {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

interface Endpoints {
  subsets?: { addresses?: { ip: string }[]; ports?: { name?: string; port: number }[] }[];
}

interface EndpointSlice {
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean } }[];
  ports?: { name?: string; port?: number }[];
}

type Read<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'http'; readonly status: number; readonly message: string }
  | { readonly kind: 'error'; readonly message: string };

/**
 * Reads the leases and endpoints through the first of `readers` that answers (the kubeconfig's server,
 * then, on a refresh, the servers already known: a kubeconfig naming one apiserver that is being
 * upgraded must not blind the refresh), and derives the servers from them.
 */
export async function findApiservers(
  readers: ServerReader | readonly ServerReader[],
  kubeconfigServer: string,
  now = Date.now(),
): Promise<FindResult> {
  const list = Array.isArray(readers) ? readers : [readers as ServerReader];
  let leases: Read<{ items?: Lease[] }> = { kind: 'error', message: 'no apiserver to ask' };
  let endpoints: Read<string[]> = { kind: 'error', message: 'no apiserver to ask' };
  let asked = kubeconfigServer;
  let untrusted: string | undefined;
  for (const reader of list) {
    // An HTTP answer (even 403) is the cluster's answer; a read that failed to connect or was cut
    // (a server draining, a keep-alive connection closed under it) is asked of the next server.
    if (leases.kind === 'error') {
      leases = await readObject<{ items?: Lease[] }>(reader, LEASES);
      if (leases.kind !== 'error') asked = reader.server.url;
    }
    if (endpoints.kind === 'error') endpoints = await readEndpointAddresses(reader);
    for (const r of [leases, endpoints])
      if (r.kind === 'error' && TLS_UNTRUSTED.test(r.message))
        untrusted ??= `${reader.server.url} presented a certificate the kubeconfig's certificate-authority does not verify (${r.message})`;
    if (leases.kind !== 'error' && endpoints.kind !== 'error') break;
  }
  const result = fromReads(leases, endpoints, kubeconfigServer, asked, now);
  return untrusted ? { ...result, untrusted } : result;
}

async function readEndpointAddresses(reader: ServerReader): Promise<Read<string[]>> {
  const eps = await readObject<Endpoints>(reader, ENDPOINTS);
  if (eps.kind === 'ok') {
    return {
      kind: 'ok',
      value: (eps.value.subsets ?? []).flatMap((s) =>
        (s.addresses ?? []).flatMap((a) => (s.ports ?? []).map((p) => hostPort(a.ip, p.port))),
      ),
    };
  }
  // Endpoints are deprecated since 1.33 and may be forbidden where EndpointSlices are not.
  if (eps.kind === 'http' && eps.status !== 401) {
    const slices = await readObject<{ items?: EndpointSlice[] }>(reader, ENDPOINT_SLICES);
    if (slices.kind === 'ok') {
      return {
        kind: 'ok',
        value: (slices.value.items ?? []).flatMap((s) =>
          (s.endpoints ?? [])
            .filter((e) => e.conditions?.ready !== false)
            .flatMap((e) =>
              (e.addresses ?? []).flatMap((ip) => (s.ports ?? []).filter((p) => p.port).map((p) => hostPort(ip, p.port as number))),
            ),
        ),
      };
    }
  }
  return eps;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function fromReads(
  leases: Read<{ items?: Lease[] }>,
  endpoints: Read<string[]>,
  kubeconfigServer: string,
  asked: string,
  now: number,
): FindResult {
  const scheme = new URL(kubeconfigServer).protocol;
  const warnings: string[] = [];
  let unauthorized: string | undefined;
  const problem = (what: string, r: Exclude<Read<unknown>, { kind: 'ok' }>) => {
    if (r.kind === 'http' && r.status === 401)
      unauthorized ??= `${asked} answered 401 Unauthorized to a read of ${what}${r.message && r.message !== 'Unauthorized' ? `: ${r.message}` : ''}`;
    warnings.push(
      r.kind === 'http'
        ? `cannot read ${what} (HTTP ${r.status}${r.message ? `: ${r.message}` : ''})`
        : `cannot read ${what}: ${r.message}`,
    );
  };

  if (leases.kind !== 'ok') problem('the apiserver identity leases', leases);
  const items = leases.kind === 'ok' ? (leases.value.items ?? []) : [];
  const { servers, claimed, expired } = serversOfLeases(items, endpoints, scheme, now, warnings);

  if (endpoints.kind !== 'ok') problem('the default/kubernetes endpoints', endpoints);
  for (const address of endpoints.kind === 'ok' ? endpoints.value : []) {
    // An expired lease's address still listed: the server runs; it stays named by its address.
    if (claimed.has(address)) continue;
    claimed.add(address);
    servers.push({ name: address, url: `${scheme}//${address}`, source: 'endpoints', address });
  }

  if (servers.length === 0 && !unauthorized) {
    warnings.push(
      `no apiserver found from leases or endpoints; routing through the kubeconfig's server ${kubeconfigServer} only (everything is local)`,
    );
    const host = new URL(kubeconfigServer).host;
    servers.push({ name: host, url: kubeconfigServer, source: 'kubeconfig', address: host });
  }
  return {
    servers: servers.sort((x, y) => x.name.localeCompare(y.name)),
    warnings,
    read: { leases: leases.kind === 'ok', endpoints: endpoints.kind === 'ok' },
    expired,
    ...(unauthorized ? { unauthorized } : {}),
  };
}

/**
 * What the identity leases say (rule §4.2): the servers they name at their advertised address, and
 * those gone; `claimed` holds the addresses they account for, which the endpoints then do not name again.
 */
function serversOfLeases(
  items: readonly Lease[],
  endpoints: Read<string[]>,
  scheme: string,
  now: number,
  warnings: string[],
): { servers: FoundServer[]; claimed: Set<string>; expired: Map<string, { url: string; reason: string; hostname?: string }> } {
  const servers: FoundServer[] = [];
  const claimed = new Set<string>();
  const expired = new Map<string, { url: string; reason: string; hostname?: string }>();
  const listed = new Set(endpoints.kind === 'ok' ? endpoints.value : []);
  // Addresses a live (unexpired) identity lease advertises: an expired lease at one of them is a
  // server replaced by another identity at the same address (a machine rebuilt under a new
  // hostname keeps its IP and port, so the endpoints still list the address).
  const liveAddresses = new Set(
    items
      .filter((l) => !leaseExpired(l, now))
      .map((l) => l.metadata?.annotations?.['kubernetes.io/peer-advertise-address'])
      .filter((a): a is string => !!a),
  );
  for (const lease of items) {
    const name = lease.metadata?.name;
    const holder = lease.spec?.holderIdentity;
    // rule §4.2: a lease counts when it has the identity label and a holder.
    if (!name || !holder || lease.metadata?.labels?.['apiserver.kubernetes.io/identity'] !== 'kube-apiserver') continue;
    const address = lease.metadata?.annotations?.['kubernetes.io/peer-advertise-address'];
    const renew = lease.spec?.renewTime;
    const expiresAt = renew ? Date.parse(renew) + (lease.spec?.leaseDurationSeconds ?? 3600) * 1000 : undefined;
    const isExpired = expiresAt !== undefined && expiresAt < now;
    const hostname = lease.metadata?.labels?.['kubernetes.io/hostname'];
    if (!address || !/^[^\s/]+:\d+$/.test(address)) {
      warnings.push(
        `lease ${name} has no kubernetes.io/peer-advertise-address annotation (the feature gate is off); its address comes from the endpoints`,
      );
      continue;
    }
    // Kubernetes keeps an expired lease as a peer until its GC deletes it (rule §4.2). Peerscope calls
    // the server gone once its address has also left the endpoints: nothing then says it still runs.
    if (isExpired && endpoints.kind === 'ok' && !listed.has(address)) {
      expired.set(name, {
        url: `${scheme}//${address}`,
        reason: `its identity lease expired at ${new Date(expiresAt).toISOString()} and its address ${address} left the default/kubernetes endpoints`,
        ...(hostname ? { hostname } : {}),
      });
      continue;
    }
    if (isExpired && liveAddresses.has(address)) {
      expired.set(name, {
        url: `${scheme}//${address}`,
        reason: `its identity lease expired at ${new Date(expiresAt).toISOString()} and another apiserver identity now holds its address ${address}`,
        ...(hostname ? { hostname } : {}),
      });
      continue;
    }
    claimed.add(address);
    const leaseInfo = {
      holderIdentity: holder,
      ...(renew ? { renewTime: renew } : {}),
      expired: isExpired,
      ...(hostname ? { hostname } : {}),
    };
    servers.push({ name, url: `${scheme}//${address}`, source: 'lease', address, lease: leaseInfo });
  }
  return { servers, claimed, expired };
}

function leaseExpired(lease: Lease, now: number): boolean {
  const renew = lease.spec?.renewTime;
  return renew !== undefined && Date.parse(renew) + (lease.spec?.leaseDurationSeconds ?? 3600) * 1000 < now;
}

async function readObject<T>(reader: ServerReader, path: string): Promise<Read<T>> {
  try {
    const res = await reader.get(path, { accept: 'application/json' });
    if (res.status === 200) return { kind: 'ok', value: JSON.parse(res.body) as T };
    let message = '';
    try {
      message = (JSON.parse(res.body) as { message?: string }).message ?? '';
    } catch {
      // Not a Status: the code says enough.
    }
    return { kind: 'http', status: res.status, message };
  } catch (err) {
    return { kind: 'error', message: describeError(err) };
  }
}
