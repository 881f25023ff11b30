// The traffic generator: realistic clients at a bounded rate — controllers that list and watch
// (including GVRs only the newer release serves), kubectl-like get / create / delete with unique
// names, and the namespace-deletion sweep that lists every namespaced GVR (the workflow a false 404
// breaks). Targets are used round-robin: one URL is Peerscope's port, several are the servers
// themselves as a load balancer would spread clients.
import { Agent, request } from 'undici';
import { catalogEntries, type ReleaseCatalog } from './catalog/index.js';

export type TrafficKind = 'list' | 'watch' | 'get' | 'create' | 'delete' | 'ns-sweep';

export interface TrafficResult {
  readonly at: number;
  readonly kind: TrafficKind;
  readonly method: string;
  readonly path: string;
  readonly gvr: string;
  readonly status: number;
  readonly ms: number;
  readonly target: string;
  readonly answeredBy?: string;
  readonly error?: string;
}

export interface AcknowledgedWrite {
  readonly op: 'create' | 'delete';
  readonly gvr: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface TrafficSummary {
  readonly total: number;
  readonly byStatus: Record<string, number>;
  readonly byKind: Record<string, number>;
  /** Every 404 for a collection or a create (never a get of a deleted object), with its GVR. */
  readonly notFound: { gvr: string; path: string; target: string; at: number }[];
  readonly writes: AcknowledgedWrite[];
  /** Names whose create or delete got no definite answer (no response, or a 5xx): the write may or may not have happened. */
  readonly uncertain: string[];
  readonly watchEvents: number;
  readonly watchReconnects: number;
}

export interface TrafficOptions {
  readonly targets: readonly string[];
  readonly ca?: string;
  readonly token?: string;
  readonly rps: number;
  readonly releases: readonly ReleaseCatalog[];
  readonly namespace?: string;
  readonly seed?: number;
  /** Long-lived controller watches kept open. */
  readonly watches?: number;
  readonly maxInFlight?: number;
  readonly onResult?: (r: TrafficResult) => void;
}

export interface TrafficHandle {
  setRate(rps: number): void;
  summary(): TrafficSummary;
  stop(): Promise<TrafficSummary>;
}

interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: ReadonlySet<string>;
  readonly key: string;
}

/** Kinds the generator creates and deletes: plain objects every simulated server stores as given. */
const WRITABLE = new Set(['/v1/configmaps', '/v1/secrets', 'scheduling.k8s.io/v1beta1/podgroups', 'resource.k8s.io/v1/resourceclaims', 'resource.k8s.io/v1beta1/resourceclaims']);

export function startTraffic(options: TrafficOptions): TrafficHandle {
  if (options.targets.length === 0) throw new Error('traffic needs at least one target');
  let rps = Math.max(0, options.rps);
  const ns = options.namespace ?? 'peerscope-traffic';
  const agent = new Agent({ connections: 32, connect: options.ca ? { ca: options.ca } : {} });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'peerscope-traffic/0.1', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  let seed = options.seed ?? 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

  const gvrs = unionGvrs(options.releases);
  const listable = gvrs.filter((g) => g.verbs.has('list'));
  const namespacedListable = listable.filter((g) => g.namespaced);
  const writable = gvrs.filter((g) => WRITABLE.has(g.key) && g.verbs.has('create'));
  const created: { gvr: Gvr; name: string }[] = [];
  const summary = { total: 0, byStatus: {} as Record<string, number>, byKind: {} as Record<string, number>, notFound: [] as TrafficSummary['notFound'], writes: [] as AcknowledgedWrite[], uncertain: [] as string[], watchEvents: 0, watchReconnects: 0 };
  const abort = new AbortController();
  let targetIndex = 0;
  let inFlight = 0;
  let serial = 0;
  let sweeping = false;
  const pending = new Set<Promise<unknown>>();

  const base = () => options.targets[targetIndex++ % options.targets.length] as string;
  const collection = (g: Gvr) => `${g.group ? `/apis/${g.group}` : '/api'}/${g.version}${g.namespaced ? `/namespaces/${ns}` : ''}/${g.resource}`;

  async function send(kind: TrafficKind, g: Gvr, method: string, path: string, body?: unknown): Promise<{ status: number; json?: Record<string, unknown> }> {
    const target = base();
    const started = performance.now();
    let status = 0;
    let answeredBy: string | undefined;
    let json: Record<string, unknown> | undefined;
    let error: string | undefined;
    try {
      const res = await request(`${target}${path}`, {
        method: method as 'GET',
        dispatcher: agent,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: abort.signal,
      });
      status = res.statusCode;
      answeredBy = answeredByOf(res.headers);
      const text = await res.body.text();
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
    } catch (err) {
      error = (err as Error).message;
    }
    if (abort.signal.aborted) return { status };
    const result: TrafficResult = { at: Date.now(), kind, method, path, gvr: g.key, status, ms: performance.now() - started, target, ...(answeredBy ? { answeredBy } : {}), ...(error ? { error } : {}) };
    summary.total++;
    summary.byStatus[String(status)] = (summary.byStatus[String(status)] ?? 0) + 1;
    summary.byKind[kind] = (summary.byKind[kind] ?? 0) + 1;
    if (status === 404 && (kind === 'list' || kind === 'ns-sweep' || kind === 'create')) summary.notFound.push({ gvr: g.key, path, target, at: result.at });
    options.onResult?.(result);
    return { status, ...(json ? { json } : {}) };
  }

  async function oneRequest(): Promise<void> {
    const r = random();
    if (r < 0.45 || writable.length === 0) {
      const g = pick(listable);
      await send('list', g, 'GET', collection(g));
    } else if (r < 0.65) {
      const g = pick(writable);
      const name = `traffic-${process.pid}-${++serial}`;
      const apiVersion = g.group ? `${g.group}/${g.version}` : g.version;
      const res = await send('create', g, 'POST', collection(g), { apiVersion, kind: g.kind, metadata: { name, namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'peerscope-traffic' } }, data: { n: String(serial) } });
      if (res.status === 0 || res.status >= 500) summary.uncertain.push(name);
      if (res.status === 201 || res.status === 200) {
        const meta = (res.json?.metadata ?? {}) as { uid?: string; resourceVersion?: string };
        created.push({ gvr: g, name });
        summary.writes.push({ op: 'create', gvr: g.key, namespace: ns, name, ...(meta.uid ? { uid: meta.uid } : {}), ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) });
      }
    } else if (r < 0.85 && created.length > 0) {
      const { gvr: g, name } = created[Math.floor(random() * created.length)] as { gvr: Gvr; name: string };
      await send('get', g, 'GET', `${collection(g)}/${name}`);
    } else if (r < 0.98 && created.length > 0) {
      const [victim] = created.splice(Math.floor(random() * created.length), 1) as [{ gvr: Gvr; name: string }];
      const res = await send('delete', victim.gvr, 'DELETE', `${collection(victim.gvr)}/${victim.name}`);
      if (res.status === 200 || res.status === 202) summary.writes.push({ op: 'delete', gvr: victim.gvr.key, namespace: ns, name: victim.name });
      else if (res.status === 0 || res.status >= 500) summary.uncertain.push(victim.name);
    } else if (!sweeping) {
      // The namespace-deletion sweep: every namespaced GVR that can be listed, one after another.
      // One sweep at a time, as the namespace controller works one namespace after another.
      sweeping = true;
      try {
        for (const g of namespacedListable) {
          if (abort.signal.aborted) return;
          await send('ns-sweep', g, 'GET', collection(g));
        }
      } finally {
        sweeping = false;
      }
    }
  }

  // Token bucket: at most `rps` starts per second, at most maxInFlight at once.
  let tokens = 0;
  let last = performance.now();
  const maxInFlight = options.maxInFlight ?? 64;
  const tick = setInterval(() => {
    const now = performance.now();
    tokens = Math.min(rps, tokens + ((now - last) / 1000) * rps);
    last = now;
    while (tokens >= 1 && inFlight < maxInFlight && !abort.signal.aborted) {
      tokens -= 1;
      inFlight++;
      const p = oneRequest().finally(() => {
        inFlight--;
        pending.delete(p);
      });
      pending.add(p);
    }
  }, 20);

  // Controllers: long-lived watches that resume from their last resourceVersion when a stream ends.
  const watched = [...listable.filter((g) => g.verbs.has('watch'))].sort((a, b) => onlySome(options.releases, b) - onlySome(options.releases, a)).slice(0, options.watches ?? 3);
  for (const g of watched) pending.add(watchLoop(g));

  async function watchLoop(g: Gvr): Promise<void> {
    let rv = '';
    while (!abort.signal.aborted) {
      const path = `${collection(g)}?watch=true&allowWatchBookmarks=true${rv ? `&resourceVersion=${rv}` : ''}`;
      try {
        const res = await request(`${base()}${path}`, { dispatcher: agent, headers, signal: abort.signal });
        let buffered = '';
        for await (const chunk of res.body) {
          buffered += chunk.toString();
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            try {
              const event = JSON.parse(line) as { type?: string; object?: { metadata?: { resourceVersion?: string } } };
              if (event.type === 'ERROR') rv = ''; // 410 Expired: relist from now
              else if (event.object?.metadata?.resourceVersion) rv = event.object.metadata.resourceVersion;
              summary.watchEvents++;
            } catch {
              // a partial or non-JSON line: ignore, as a reflector logs and moves on
            }
          }
        }
      } catch {
        // connection refused or cut: back off and reconnect
      }
      if (abort.signal.aborted) break;
      summary.watchReconnects++;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const snapshot = (): TrafficSummary => ({ ...summary, byStatus: { ...summary.byStatus }, byKind: { ...summary.byKind }, notFound: [...summary.notFound], writes: [...summary.writes], uncertain: [...summary.uncertain] });
  return {
    setRate(next) {
      rps = Math.max(0, next);
    },
    summary: snapshot,
    async stop() {
      clearInterval(tick);
      abort.abort();
      await Promise.allSettled([...pending]);
      await agent.close();
      return snapshot();
    },
  };
}

function answeredByOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const route = headers['x-peerscope-route'];
  if (typeof route === 'string') {
    const m = /answering=([^;\s]+)/.exec(route);
    if (m && m[1] !== '-') return m[1];
  }
  const sim = headers['x-simulated-apiserver'];
  return typeof sim === 'string' ? sim : undefined;
}

function unionGvrs(releases: readonly ReleaseCatalog[]): Gvr[] {
  const out = new Map<string, Gvr>();
  for (const r of releases) {
    for (const e of catalogEntries(r)) {
      const key = `${e.group}/${e.version}/${e.resource.name}`;
      if (!out.has(key)) out.set(key, { group: e.group, version: e.version, resource: e.resource.name, kind: e.resource.kind, namespaced: e.resource.namespaced, verbs: new Set(e.resource.verbs), key });
    }
  }
  return [...out.values()];
}

/** 1 when only some releases serve the GVR: controllers of new APIs are the interesting watchers. */
function onlySome(releases: readonly ReleaseCatalog[], g: Gvr): number {
  const served = releases.filter((r) => [...catalogEntries(r)].some((e) => `${e.group}/${e.version}/${e.resource.name}` === g.key)).length;
  return served < releases.length ? 1 : 0;
}
