// Finds every apiserver of a cluster from inside it, as kube-apiserver's own peer discovery does
// (spec §4.1–4.3, P2): the identity Leases in kube-system (label
// apiserver.kubernetes.io/identity=kube-apiserver, address in the kubernetes.io/peer-advertise-address
// annotation) and the addresses of the default/kubernetes Endpoints. Where RBAC forbids a read it says
// so, and with nothing found it falls back to the kubeconfig's own server.
import type { ControlClient } from './control-client.js';
import { describeError } from './control-client.js';

export interface FoundServer {
  /** The lease name (the server ID) when known, else HOST:PORT. */
  readonly name: string;
  readonly url: string;
  readonly source: 'lease' | 'endpoints' | 'kubeconfig';
  readonly lease?: {
    readonly holderIdentity: string;
    readonly renewTime?: string;
    /** renewTime + leaseDurationSeconds is past: Kubernetes still counts it until GC (spec §4.2). */
    readonly expired: boolean;
    readonly hostname?: string;
  };
}

export interface FindResult {
  readonly servers: FoundServer[];
  /** What could not be read, for the operator (e.g. RBAC). */
  readonly warnings: string[];
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver';
const ENDPOINTS = '/api/v1/namespaces/default/endpoints/kubernetes';

interface Lease {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

export async function findApiservers(client: ControlClient, kubeconfigServer: string, now = Date.now()): Promise<FindResult> {
  const scheme = new URL(kubeconfigServer).protocol;
  const warnings: string[] = [];
  const servers: FoundServer[] = [];
  const claimed = new Set<string>();

  const leases = await readList<Lease>(client, LEASES, 'the apiserver identity leases', warnings);
  for (const lease of leases ?? []) {
    const name = lease.metadata?.name;
    const holder = lease.spec?.holderIdentity;
    // spec §4.2: a lease counts when it has the identity label and a holder; expiry is not checked.
    if (!name || !holder || lease.metadata?.labels?.['apiserver.kubernetes.io/identity'] !== 'kube-apiserver') continue;
    const address = lease.metadata?.annotations?.['kubernetes.io/peer-advertise-address'];
    const renew = lease.spec?.renewTime;
    const expired = renew ? Date.parse(renew) + (lease.spec?.leaseDurationSeconds ?? 3600) * 1000 < now : false;
    const leaseInfo = { holderIdentity: holder, ...(renew ? { renewTime: renew } : {}), expired, ...(lease.metadata?.labels?.['kubernetes.io/hostname'] ? { hostname: lease.metadata.labels['kubernetes.io/hostname'] } : {}) };
    if (address && /^[^\s/]+:\d+$/.test(address)) {
      claimed.add(address);
      servers.push({ name, url: `${scheme}//${address}`, source: 'lease', lease: leaseInfo });
    } else {
      warnings.push(`lease ${name} has no kubernetes.io/peer-advertise-address annotation (the feature gate is off); its address comes from the endpoints`);
    }
  }

  const endpoints = await readObject<{ subsets?: { addresses?: { ip: string }[]; ports?: { name?: string; port: number }[] }[] }>(client, ENDPOINTS, 'the default/kubernetes endpoints', warnings);
  for (const subset of endpoints?.subsets ?? []) {
    for (const a of subset.addresses ?? []) {
      for (const p of subset.ports ?? []) {
        const address = a.ip.includes(':') ? `[${a.ip}]:${p.port}` : `${a.ip}:${p.port}`;
        if (claimed.has(address)) continue;
        claimed.add(address);
        servers.push({ name: address, url: `${scheme}//${address}`, source: 'endpoints' });
      }
    }
  }

  if (servers.length === 0) {
    warnings.push(`no apiserver found from leases or endpoints; routing through the kubeconfig's server ${kubeconfigServer} only (everything is local)`);
    servers.push({ name: new URL(kubeconfigServer).host, url: kubeconfigServer, source: 'kubeconfig' });
  }
  return { servers: servers.sort((x, y) => x.name.localeCompare(y.name)), warnings };
}

async function readObject<T>(client: ControlClient, path: string, what: string, warnings: string[]): Promise<T | undefined> {
  try {
    const res = await client.get(path, { accept: 'application/json' });
    if (res.status === 200) return JSON.parse(res.body) as T;
    const message = (() => {
      try {
        return (JSON.parse(res.body) as { message?: string }).message;
      } catch {
        return undefined;
      }
    })();
    warnings.push(`cannot read ${what} (HTTP ${res.status}${message ? `: ${message}` : ''})`);
  } catch (err) {
    warnings.push(`cannot read ${what}: ${describeError(err)}`);
  }
  return undefined;
}

async function readList<T>(client: ControlClient, path: string, what: string, warnings: string[]): Promise<T[] | undefined> {
  return (await readObject<{ items?: T[] }>(client, path, what, warnings))?.items;
}
