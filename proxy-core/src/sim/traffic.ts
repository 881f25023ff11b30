// The traffic generator: realistic clients at a bounded rate — controllers that list and then watch
// (including GVRs only the newer release serves) and resume from their last resourceVersion as
// client-go reflectors do, kubectl-like get / create / delete with unique names, and the
// namespace-deletion sweep that lists every namespaced GVR (the workflow a false 404 breaks), and an
// old operator that still watches a version the newest release removed. Each kind of request is sent
// under the user agent of the client that makes it in a cluster (traffic/clients.ts).
// Targets are used round-robin: one URL is Peerscope's port, several are the servers themselves as
// a load balancer would spread clients. Every request, watches and sweep steps included, takes a
// token from one bucket: the generator never exceeds its rate (plus a burst of a tenth of a second).
import { randomBytes } from 'node:crypto';
import { seededRandom } from '../util/seeded-random.js';
import { setMaxListeners } from 'node:events';
import { Agent, request } from '../upstream/undici.js';
import { catalogEntries, type ReleaseCatalog } from '../releases/index.js';
import { legacyOperatorGvr, TRAFFIC_CLIENTS, type TrafficClient } from './traffic/clients.js';
import { isWritable, objectFor } from './traffic/objects.js';
import { TokenBucket } from './traffic/token-bucket.js';
import { emptyWatchCounts, type WatchCounts, type WatchSegment } from './traffic/watch-log.js';

export type { WatchCounts, WatchSegment } from './traffic/watch-log.js';
export { legacyOperatorGvr, TRAFFIC_CLIENTS, type TrafficClient } from './traffic/clients.js';

export type TrafficKind = 'list' | 'watch' | 'get' | 'create' | 'delete' | 'ns-sweep';

export interface TrafficResult {
  readonly at: number;
  readonly kind: TrafficKind;
  readonly method: string;
  readonly path: string;
  /** "group/version/resource" ("" group for the core API). */
  readonly gvr: string;
  /** 0 when no HTTP answer came (connection refused or cut). */
  readonly status: number;
  /** Until the whole answer; for a watch, until its response headers. */
  readonly ms: number;
  readonly target: string;
  /** The user agent it was sent with: which of TRAFFIC_CLIENTS sent it. */
  readonly userAgent: string;
  /** The server that answered: X-Peerscope-Route's answering server, else X-Simulated-Apiserver. */
  readonly answeredBy?: string;
  readonly error?: string;
}

export interface AcknowledgedWrite {
  readonly op: 'create' | 'delete';
  readonly gvr: string;
  /** "" for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface TrafficSummary {
  readonly total: number;
  readonly byStatus: Record<string, number>;
  readonly byKind: Record<string, number>;
  /** Every 404 for a collection (list, watch, sweep) or a create — never a get or delete of one object — with its GVR. */
  readonly notFound: { gvr: string; path: string; target: string; at: number; kind: TrafficKind }[];
  readonly writes: AcknowledgedWrite[];
  /** Names whose create or delete got no definite answer (no response, or a 5xx): the write may or may not have happened. */
  readonly uncertain: string[];
  readonly watchEvents: number;
  readonly watchReconnects: number;
  /** How the reflectors' watches went: opened, ended cleanly, errored, refused, resumed, relisted. */
  readonly watches: WatchCounts;
  /** Per reflector, the list → watch → resume … segments with the resourceVersions received (see watch-log.ts). */
  readonly watchSegments: WatchSegment[];
}

export interface TrafficOptions {
  readonly targets: readonly string[];
  /** CA (PEM) that verifies https:// targets. */
  readonly ca?: string;
  readonly token?: string;
  /** Requests per second, all kinds together; 0 sends nothing until setRate(). */
  readonly rps: number;
  /** Every release in play: the generator asks for the union of their GVRs. */
  readonly releases: readonly ReleaseCatalog[];
  readonly namespace?: string;
  /** Seeds the choice of requests (names stay unique across runs). */
  readonly seed?: number;
  /** Stops the generator like stop(). */
  readonly signal?: AbortSignal;
  /** Controller reflectors (list, then watch) kept running; default 3. */
  readonly watches?: number;
  /** Short requests in flight at once; default 32. */
  readonly maxInFlight?: number;
  /** How long stop() lets in-flight requests finish before cutting them; default 2000 ms. */
  readonly stopGraceMs?: number;
  readonly onResult?: (r: TrafficResult) => void;
}

export interface TrafficHandle {
  setRate(rps: number): void;
  summary(): TrafficSummary;
  /** No new requests; watches end at once, other requests get the grace; then the final summary. */
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
  /** Served by only some of the releases: the GVRs a rollout makes appear or vanish. */
  readonly skewed: boolean;
}

interface Answer {
  readonly status: number;
  readonly json?: Record<string, unknown>;
}

const WATCH_BACKOFF_MS = [250, 500, 1000, 2000];

export function startTraffic(options: TrafficOptions): TrafficHandle {
  if (options.targets.length === 0) throw new Error('traffic needs at least one target');
  const ns = options.namespace ?? 'peerscope-traffic';
  const runId = randomBytes(3).toString('hex');
  const agent = new Agent({ connections: 64, connect: options.ca ? { ca: options.ca } : {} });
  const baseHeaders: Record<string, string> = { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  const headersOf = (client: TrafficClient): Record<string, string> => ({ ...baseHeaders, 'user-agent': client.userAgent });
  const clientOf = (kind: TrafficKind): TrafficClient => (kind === 'ns-sweep' ? TRAFFIC_CLIENTS.namespaceController : TRAFFIC_CLIENTS.kubectl);
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

  const gvrs = unionGvrs(options.releases);
  const listable = gvrs.filter((g) => g.verbs.has('list'));
  const namespacedListable = listable.filter((g) => g.namespaced);
  const writable = gvrs.filter((g) => isWritable(g.key) && g.verbs.has('create') && g.verbs.has('delete'));
  const created: { gvr: Gvr; name: string }[] = [];
  const summary = { total: 0, byStatus: {} as Record<string, number>, byKind: {} as Record<string, number>, notFound: [] as TrafficSummary['notFound'], writes: [] as AcknowledgedWrite[], uncertain: [] as string[], watchEvents: 0, watchReconnects: 0, watches: emptyWatchCounts(), watchSegments: [] as WatchSegment[] };

  const bucket = new TokenBucket(Math.max(0, options.rps));
  // Watches are cut at once on stop; short requests get a grace first.
  const watchAbort = new AbortController();
  const requestAbort = new AbortController();
  setMaxListeners(0, watchAbort.signal, requestAbort.signal);
  let stopping = false;
  let targetIndex = 0;
  let serial = 0;
  let sweeping = false;
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const nextTarget = () => options.targets[targetIndex++ % options.targets.length] as string;
  const collection = (g: Gvr) => `${g.group ? `/apis/${g.group}` : '/api'}/${g.version}${g.namespaced ? `/namespaces/${ns}` : ''}/${g.resource}`;

  function record(result: TrafficResult): void {
    summary.total++;
    summary.byStatus[String(result.status)] = (summary.byStatus[String(result.status)] ?? 0) + 1;
    summary.byKind[result.kind] = (summary.byKind[result.kind] ?? 0) + 1;
    if (result.status === 404 && result.kind !== 'get' && result.kind !== 'delete') {
      summary.notFound.push({ gvr: result.gvr, path: result.path, target: result.target, at: result.at, kind: result.kind });
    }
    options.onResult?.(result);
  }

  /** One short request; takes a token first unless the caller already holds one. Undefined when stopped before it was sent. */
  async function send(kind: TrafficKind, g: Gvr, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, paid = false, client = clientOf(kind)): Promise<Answer | undefined> {
    if (!paid && !(await bucket.take())) return undefined;
    const headers = headersOf(client);
    const target = nextTarget();
    const started = performance.now();
    let status = 0;
    let answeredBy: string | undefined;
    let json: Record<string, unknown> | undefined;
    let error: string | undefined;
    try {
      const res = await request(`${target}${path}`, {
        method,
        dispatcher: agent,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: requestAbort.signal,
      });
      status = res.statusCode;
      answeredBy = answeredByOf(res.headers);
      json = parseObject(await res.body.text());
    } catch (err) {
      error = (err as Error).message;
    }
    // Cut by our own stop: not a result of the system under test.
    if (requestAbort.signal.aborted && status === 0) return { status };
    record({ at: Date.now(), kind, method, path, gvr: g.key, status, ms: performance.now() - started, target, userAgent: client.userAgent, ...(answeredBy ? { answeredBy } : {}), ...(error ? { error } : {}) });
    return { status, ...(json ? { json } : {}) };
  }

  async function list(): Promise<void> {
    const g = pick(listable);
    await send('list', g, 'GET', collection(g), undefined, true);
  }

  async function create(): Promise<void> {
    const g = pick(writable);
    const n = ++serial;
    const name = `traffic-${runId}-${n}`;
    const res = await send('create', g, 'POST', collection(g), objectFor(g, name, ns, n), true);
    if (!res) return;
    if (res.status === 0 || res.status >= 500) summary.uncertain.push(name);
    if (res.status === 201 || res.status === 200) {
      const meta = (res.json?.metadata ?? {}) as { uid?: string; resourceVersion?: string };
      created.push({ gvr: g, name });
      summary.writes.push({ op: 'create', gvr: g.key, namespace: g.namespaced ? ns : '', name, ...(meta.uid ? { uid: meta.uid } : {}), ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) });
    }
  }

  async function get(): Promise<void> {
    const { gvr: g, name } = pick(created);
    await send('get', g, 'GET', `${collection(g)}/${name}`, undefined, true);
  }

  async function remove(): Promise<void> {
    const [victim] = created.splice(Math.floor(random() * created.length), 1) as [{ gvr: Gvr; name: string }];
    const res = await send('delete', victim.gvr, 'DELETE', `${collection(victim.gvr)}/${victim.name}`, undefined, true);
    if (!res) return;
    if (res.status === 200 || res.status === 202) summary.writes.push({ op: 'delete', gvr: victim.gvr.key, namespace: victim.gvr.namespaced ? ns : '', name: victim.name });
    else if (res.status === 0 || res.status >= 500) summary.uncertain.push(victim.name);
  }

  /** The namespace controller's sweep: every namespaced GVR that can be listed, one after another. */
  async function sweep(): Promise<void> {
    sweeping = true;
    try {
      let paid = true;
      for (const g of namespacedListable) {
        if (stopping) return;
        if (!(await send('ns-sweep', g, 'GET', collection(g), undefined, paid))) return;
        paid = false;
      }
    } finally {
      sweeping = false;
    }
  }

  function chooseAction(): () => Promise<void> {
    const r = random();
    if (r < 0.45 || writable.length === 0) return list;
    if (r < 0.65) return create;
    if (r < 0.82 && created.length > 0) return get;
    if (r < 0.97 && created.length > 0) return remove;
    // One sweep at a time, as the namespace controller works one namespace after another.
    if (r >= 0.97 && !sweeping) return sweep;
    return list;
  }

  // The namespace the writes go to, as an operator's kubectl would create it first; 409 is fine.
  const namespaces = gvrs.find((g) => g.key === '/v1/namespaces');
  async function ensureNamespace(): Promise<void> {
    if (!namespaces) return;
    const res = await send('create', namespaces, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    if (res?.status === 201) summary.writes.push({ op: 'create', gvr: namespaces.key, namespace: '', name: ns, ...metadataOf(res.json) });
  }

  async function dispatch(): Promise<void> {
    await ensureNamespace();
    const maxInFlight = options.maxInFlight ?? 32;
    let inFlight = 0;
    let slotFreed: (() => void) | undefined;
    while (!stopping) {
      if (inFlight >= maxInFlight) {
        await new Promise<void>((resolve) => (slotFreed = resolve));
        continue;
      }
      if (!(await bucket.take())) break;
      const action = chooseAction();
      inFlight++;
      track(action().finally(() => {
        inFlight--;
        slotFreed?.();
        slotFreed = undefined;
      }));
    }
  }

  /** A controller's reflector: list, then watch from the list's resourceVersion; on a clean end, watch again from the last one seen; on 410 Gone, list again. */
  async function reflector(g: Gvr, client: TrafficClient = TRAFFIC_CLIENTS.garbageCollector): Promise<void> {
    let rv: string | undefined;
    let failures = 0;
    let segment: WatchSegment | undefined;
    const backoff = async () => {
      await sleep(WATCH_BACKOFF_MS[Math.min(failures++, WATCH_BACKOFF_MS.length - 1)] as number, watchAbort.signal);
    };
    while (!stopping) {
      if (rv === undefined) {
        const res = await send('list', g, 'GET', `${collection(g)}?limit=500`, undefined, false, client);
        if (!res) return;
        const listRv = (res.json?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
        if (res.status !== 200 || typeof listRv !== 'string') {
          await backoff();
          continue;
        }
        rv = listRv;
        segment = { gvr: g.key, namespace: g.namespaced ? ns : '', fromRv: Number(listRv), rvs: [], lastRv: Number(listRv), streams: 0 };
        summary.watchSegments.push(segment);
      }
      if (!(await bucket.take())) return;
      const outcome = await watchOnce(g, rv, segment as WatchSegment, client);
      if (outcome.kind === 'stopped') return;
      if (outcome.kind === 'gone') {
        rv = undefined;
        summary.watches.relisted++;
      } else if (outcome.rv) rv = outcome.rv;
      if (outcome.kind === 'ended') failures = 0;
      else await backoff();
      summary.watchReconnects++;
    }
  }

  async function watchOnce(g: Gvr, rv: string, segment: WatchSegment, client: TrafficClient): Promise<{ kind: 'ended' | 'failed' | 'gone' | 'stopped'; rv?: string }> {
    const target = nextTarget();
    const path = `${collection(g)}?allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=${300 + Math.floor(random() * 300)}&watch=true`;
    const started = performance.now();
    const headers = headersOf(client);
    let lastRv: string | undefined;
    let opened = false;
    const held = (next: string) => {
      lastRv = next;
      segment.lastRv = Math.max(segment.lastRv, Number(next));
    };
    try {
      const res = await request(`${target}${path}`, { dispatcher: agent, headers, signal: watchAbort.signal });
      const answeredBy = answeredByOf(res.headers);
      record({ at: Date.now(), kind: 'watch', method: 'GET', path, gvr: g.key, status: res.statusCode, ms: performance.now() - started, target, userAgent: client.userAgent, ...(answeredBy ? { answeredBy } : {}) });
      if (res.statusCode !== 200) {
        await res.body.text();
        summary.watches.refused++;
        return { kind: res.statusCode === 410 ? 'gone' : 'failed' };
      }
      opened = true;
      summary.watches.opened++;
      if (segment.streams++ > 0) summary.watches.resumed++;
      let buffered = '';
      for await (const chunk of res.body) {
        buffered += (chunk as Buffer).toString();
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const event = parseObject(buffered.slice(0, nl)) as { type?: string; object?: { code?: number; metadata?: { resourceVersion?: string } } } | undefined;
          buffered = buffered.slice(nl + 1);
          if (!event) continue; // a line that is not JSON: a reflector logs it and moves on
          summary.watchEvents++;
          if (event.type === 'ERROR') {
            const gone = event.object?.code === 410;
            if (!gone) summary.watches.errored++;
            else summary.watches.endedCleanly++;
            return { kind: gone ? 'gone' : 'failed', ...(lastRv ? { rv: lastRv } : {}) };
          }
          const eventRv = event.object?.metadata?.resourceVersion;
          if (!eventRv) continue;
          if (event.type !== 'BOOKMARK') segment.rvs.push(Number(eventRv));
          held(eventRv);
        }
      }
      summary.watches.endedCleanly++;
      return { kind: 'ended', ...(lastRv ? { rv: lastRv } : {}) };
    } catch (err) {
      if (watchAbort.signal.aborted) {
        if (opened) summary.watches.stoppedByClient++;
        return { kind: 'stopped' };
      }
      if (opened) summary.watches.errored++;
      else {
        summary.watches.refused++;
        // No answer at all (refused, reset before headers): a request that failed.
        record({ at: Date.now(), kind: 'watch', method: 'GET', path, gvr: g.key, status: 0, ms: performance.now() - started, target, userAgent: client.userAgent, error: (err as Error).message });
      }
      return { kind: 'failed', ...(lastRv ? { rv: lastRv } : {}) };
    }
  }

  track(dispatch());
  for (const g of chooseWatched(listable, options.watches ?? 3)) track(reflector(g));
  const legacy = legacyOperatorGvr(options.releases);
  const legacyGvr = legacy === undefined ? undefined : listable.find((g) => g.key === legacy);
  if (legacyGvr) track(reflector(legacyGvr, TRAFFIC_CLIENTS.legacyOperator));

  const snapshot = (): TrafficSummary => ({
    ...summary, byStatus: { ...summary.byStatus }, byKind: { ...summary.byKind }, notFound: [...summary.notFound], writes: [...summary.writes], uncertain: [...summary.uncertain],
    watches: { ...summary.watches }, watchSegments: summary.watchSegments.map((s) => ({ ...s, rvs: [...s.rvs] })),
  });
  let stopped: Promise<TrafficSummary> | undefined;
  const stop = (): Promise<TrafficSummary> => {
    stopped ??= (async () => {
      stopping = true;
      bucket.close();
      watchAbort.abort();
      const grace = setTimeout(() => requestAbort.abort(), options.stopGraceMs ?? 2000);
      while (pending.size > 0) await Promise.allSettled([...pending]);
      clearTimeout(grace);
      await agent.close();
      return snapshot();
    })();
    return stopped;
  };
  if (options.signal) {
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  }
  return {
    setRate(next) {
      bucket.setRate(Math.max(0, next));
    },
    summary: snapshot,
    stop,
  };
}

/** Watched GVRs: alternately one that every release serves and one only some serve (a new API's controller). */
function chooseWatched(listable: readonly Gvr[], count: number): Gvr[] {
  const watchable = listable.filter((g) => g.verbs.has('watch'));
  // configmaps first, then the other kinds the generator writes: those watches see events.
  const rank = (g: Gvr) => (g.key === '/v1/configmaps' ? 2 : isWritable(g.key) ? 1 : 0);
  const common = watchable.filter((g) => !g.skewed).sort((a, b) => rank(b) - rank(a));
  const skewed = watchable.filter((g) => g.skewed).sort((a, b) => rank(b) - rank(a));
  const out: Gvr[] = [];
  for (let i = 0; out.length < count && (i < common.length || i < skewed.length); i++) {
    for (const g of [common[i], skewed[i]]) if (g && out.length < count) out.push(g);
  }
  return out;
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

function metadataOf(json: Record<string, unknown> | undefined): { uid?: string; resourceVersion?: string } {
  const meta = (json?.metadata ?? {}) as { uid?: unknown; resourceVersion?: unknown };
  return { ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}), ...(typeof meta.resourceVersion === 'string' ? { resourceVersion: meta.resourceVersion } : {}) };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function unionGvrs(releases: readonly ReleaseCatalog[]): Gvr[] {
  // Three servers at two releases are two releases here: skew is about what the releases serve.
  const distinct = [...new Set(releases)];
  const servedBy = new Map<string, number>();
  const out = new Map<string, Omit<Gvr, 'skewed'>>();
  for (const r of distinct) {
    for (const e of catalogEntries(r)) {
      const key = `${e.group}/${e.version}/${e.resource.name}`;
      servedBy.set(key, (servedBy.get(key) ?? 0) + 1);
      if (!out.has(key)) out.set(key, { group: e.group, version: e.version, resource: e.resource.name, kind: e.resource.kind, namespaced: e.resource.namespaced, verbs: new Set(e.resource.verbs), key });
    }
  }
  return [...out.values()].map((g) => ({ ...g, skewed: (servedBy.get(g.key) ?? 0) < distinct.length }));
}
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
