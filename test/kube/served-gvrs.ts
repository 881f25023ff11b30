// What a real server serves itself, read from its own aggregated discovery (profile=nopeer, so a
// server whose own Mixed Version Proxy is on still lists only its own): every top-level resource with
// the verbs it lists, and the path of its collection.
import type { ControlPlane } from './control-plane.js';
import { DISCOVERY_ACCEPT } from './discovery-compare.js';

export interface ServedGvr {
  /** group/version/resource; core group "". */
  readonly key: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly verbs: readonly string[];
  /** The collection across namespaces: /api/v1/pods, /apis/apps/v1/deployments. */
  readonly path: string;
}

interface DiscoveryList {
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: { resource: string; verbs?: string[] }[] }[] }[];
}

/** The server's own discovery documents of /api and /apis, as captured files hold them. */
export async function ownDiscovery(cp: ControlPlane, host: string): Promise<{ api: string; apis: string }> {
  const read = async (path: string) => {
    const res = await cp.call(host, path, { headers: { accept: `${DISCOVERY_ACCEPT};profile=nopeer` } });
    if (res.status !== 200) throw new Error(`GET ${path} on ${host}: ${res.status} ${res.text}`);
    return res.text;
  };
  return { api: await read('/api'), apis: await read('/apis') };
}

export async function servedGvrs(cp: ControlPlane, host: string): Promise<Map<string, ServedGvr>> {
  const docs = await ownDiscovery(cp, host);
  const served = new Map<string, ServedGvr>();
  for (const text of [docs.api, docs.apis]) {
    for (const g of (JSON.parse(text) as DiscoveryList).items ?? []) {
      const group = g.metadata?.name ?? '';
      for (const v of g.versions ?? [])
        for (const r of v.resources ?? []) {
          const key = `${group}/${v.version}/${r.resource}`;
          const path = group ? `/apis/${group}/${v.version}/${r.resource}` : `/api/${v.version}/${r.resource}`;
          served.set(key, { key, group, version: v.version, resource: r.resource, verbs: r.verbs ?? [], path });
        }
    }
  }
  return served;
}
