// Test bed for the local port: simulated apiservers built from catalogs picked out of a real
// release (so kinds, scopes and verbs are real), with the core in front of them.
import { request } from 'undici';
import { createCore, type Core, type CoreOptions } from '../engine/core.js';
import { loadRelease, type CatalogGroup, type ReleaseCatalog } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';

/** "group/version/resource" keys, core group as "" (e.g. "/v1/pods"). */
export type GvrSpec = readonly string[];

/** A catalog with only the listed GVRs of `base` (v1.37-dev by default), named `release`. */
export function pickCatalog(release: string, gvrs: GvrSpec, base: ReleaseCatalog = loadRelease('v1.37-dev')): ReleaseCatalog {
  const wanted = new Set(gvrs);
  const groups: CatalogGroup[] = [];
  for (const g of base.groups) {
    const versions = g.versions
      .map((v) => ({ version: v.version, resources: v.resources.filter((r) => wanted.has(`${g.name}/${v.version}/${r.name}`)) }))
      .filter((v) => v.resources.length > 0);
    if (versions.length > 0) groups.push({ name: g.name, versions });
  }
  const found = groups.flatMap((g) => g.versions.flatMap((v) => v.resources.map((r) => `${g.name}/${v.version}/${r.name}`)));
  const missing = [...wanted].filter((k) => !found.includes(k));
  if (missing.length) throw new Error(`the base release has no ${missing.join(', ')}`);
  return { ...base, release, groups };
}

/** Spec §7: server A's GVRs, plus what the control plane itself needs (leases, endpoints). */
export const A_GVRS: GvrSpec = [
  'apps/v1/deployments',
  '/v1/pods',
  '/v1/namespaces',
  '/v1/configmaps',
  'rbac.authorization.k8s.io/v1/clusterroles',
  'batch/v1/jobs',
  'coordination.k8s.io/v1/leases',
  '/v1/endpoints',
  'discovery.k8s.io/v1/endpointslices',
];
export const B_GVRS: GvrSpec = [...A_GVRS, 'resource.k8s.io/v1/deviceclasses', 'resource.k8s.io/v1beta1/resourceclaims'];
export const C_GVRS: GvrSpec = [...A_GVRS, 'resource.k8s.io/v1beta2/resourceclaims'];
export const D_GVRS: GvrSpec = [...A_GVRS, 'resource.k8s.io/v1/deviceclasses'];

export interface Bed {
  readonly sim: SimCluster;
  readonly core: Core;
  readonly url: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  send(method: string, path: string, headers?: Record<string, string>, body?: string): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  json<T = Record<string, unknown>>(): T;
  route(): string;
}

export async function startBed(
  servers: Record<string, GvrSpec | ReleaseCatalog>,
  core: Partial<CoreOptions> = {},
  sim: { http?: boolean } = { http: true },
): Promise<Bed> {
  const names = Object.keys(servers);
  const releases = names.map((n) => {
    const s = servers[n] as GvrSpec | ReleaseCatalog;
    return 'groups' in s ? s : pickCatalog(`conf-${n}`, s);
  });
  const cluster = await startSimCluster({ releases, names, basePort: 0, ...(sim.http ? { http: true } : {}) });
  const c = createCore({
    servers: cluster.serverConfigs(),
    listen: { port: 0 },
    probeIntervalMs: 200,
    discoveryIntervalMs: 60_000,
    ...core,
  });
  const address = await c.start();
  const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> => {
    const res = await request(`${address.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      body: text,
      json: <T>() => JSON.parse(text) as T,
      route: () => String(res.headers['x-peerscope-route'] ?? ''),
    };
  };
  return {
    sim: cluster,
    core: c,
    url: address.url,
    get: (path, headers) => send('GET', path, headers),
    send,
    async close() {
      await c.close(0);
      await cluster.close();
    },
  };
}

/** Waits until `check` holds, polling; fails with `what` after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
