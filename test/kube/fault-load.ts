// The load of one side of a fault test (through the port, or straight to the servers round-robin as
// a load balancer without health checks would): writers that create ConfigMaps with known names and
// read one that always exists, and reflectors that list and watch the namespace, watching again
// whenever a watch ends. Every request, write and watch is recorded, so the test can say what the
// fault cost each side. Bounded: each request by its timeouts, the whole by stop() and a request cap.
import { Agent, request, type Dispatcher } from 'undici';

export interface LaneOptions {
  /** Round-robin targets (one: the port). */
  readonly targets: readonly string[];
  readonly namespace: string;
  /** Sent as the Authorization (none through the port, which adds its own). */
  readonly token?: string;
  readonly ca: string;
  readonly writers: number;
  readonly writeEveryMs: number;
  readonly reflectors: number;
  /** A client gives up on an answer after this long (longer than the port's own timeouts). */
  readonly requestTimeoutMs: number;
  /** A watch silent this long while the namespace changes (a heartbeat) is stalled. */
  readonly stallMs: number;
  readonly maxRequests: number;
}

export type RequestKind = 'create' | 'get' | 'list' | 'watch';

export interface RequestRecord {
  readonly kind: RequestKind;
  readonly target: string;
  /** 0: no answer (refused, reset, timed out at the client). */
  readonly status: number;
  readonly ms: number;
  /** The answer was a Kubernetes Status (its reason), for statuses other than 2xx. */
  readonly statusReason?: string;
  /** That Status's message. */
  readonly statusMessage?: string;
  /** The port's X-Peerscope-Route on the answer, where there is one. */
  readonly route?: string;
  /** The created object's name, for a create. */
  readonly name?: string;
  readonly at: number;
}

export interface WatchRecord {
  readonly target: string;
  readonly openedAt: number;
  readonly ending: 'clean' | 'cut' | 'open at stop';
  /** Silences of at least stallMs, from the last event to the next (or to the end). */
  readonly stallsMs: number[];
}

export interface LaneResult {
  readonly requests: RequestRecord[];
  readonly watches: WatchRecord[];
}

export interface Lane {
  stop(): Promise<LaneResult>;
}

export function startLane(o: LaneOptions): Lane {
  const dispatcher = new Agent({ connect: { ca: o.ca, timeout: o.requestTimeoutMs }, headersTimeout: o.requestTimeoutMs });
  const requests: RequestRecord[] = [];
  const watches: WatchRecord[] = [];
  const open = new Set<Dispatcher.ResponseData['body']>();
  let stopped = false;
  let turn = 0;
  let seq = 0;
  const next = () => o.targets[turn++ % o.targets.length] as string;
  const headers = o.token ? { authorization: `Bearer ${o.token}`, accept: 'application/json' } : { accept: 'application/json' };
  const base = `/api/v1/namespaces/${o.namespace}/configmaps`;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  async function call(
    kind: RequestKind,
    target: string,
    path: string,
    body?: unknown,
    name?: string,
  ): Promise<RequestRecord & { text?: string }> {
    const started = performance.now();
    const at = Date.now();
    try {
      const res = await request(`${target}${path}`, {
        dispatcher,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(o.requestTimeoutMs),
      });
      const text = await res.body.text();
      let statusReason: string | undefined;
      let statusMessage: string | undefined;
      if (res.statusCode >= 300) {
        try {
          const s = JSON.parse(text) as { kind?: string; reason?: string; message?: string };
          if (s.kind === 'Status') {
            statusReason = s.reason ?? '';
            statusMessage = s.message ?? '';
          }
        } catch {
          // not JSON: no Status
        }
      }
      const r = {
        kind,
        target,
        status: res.statusCode,
        ms: performance.now() - started,
        at,
        ...(statusReason !== undefined ? { statusReason } : {}),
        ...(statusMessage !== undefined ? { statusMessage } : {}),
        ...(typeof res.headers['x-peerscope-route'] === 'string' ? { route: res.headers['x-peerscope-route'] } : {}),
        ...(name ? { name } : {}),
      };
      requests.push(r);
      return { ...r, text };
    } catch {
      const r = { kind, target, status: 0, ms: performance.now() - started, at, ...(name ? { name } : {}) };
      requests.push(r);
      return r;
    }
  }

  async function writer(id: number): Promise<void> {
    while (!stopped && requests.length < o.maxRequests) {
      const name = `w${id}-${seq++}`;
      await call('create', next(), base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: name } }, name);
      if (stopped) break;
      await call('get', next(), `${base}/seed`);
      await sleep(o.writeEveryMs);
    }
  }

  async function reflector(): Promise<void> {
    while (!stopped && requests.length < o.maxRequests) {
      const target = next();
      const list = await call('list', target, `${base}?limit=1`);
      if (list.status !== 200 || !list.text) {
        await sleep(250);
        continue;
      }
      const rv = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      if (stopped) break;
      await watch(target, rv);
    }
  }

  async function watch(target: string, rv: string): Promise<void> {
    const openedAt = Date.now();
    const started = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${target}${base}?watch=true&resourceVersion=${rv}`, {
        dispatcher,
        headers,
        // Open as long as the server keeps it: the headers are bounded by the agent's headersTimeout.
        bodyTimeout: 0,
      });
    } catch {
      requests.push({ kind: 'watch', target, status: 0, ms: performance.now() - started, at: openedAt });
      return sleep(250);
    }
    requests.push({ kind: 'watch', target, status: res.statusCode, ms: performance.now() - started, at: openedAt });
    if (res.statusCode !== 200) {
      await res.body.text().catch(() => '');
      return sleep(250);
    }
    open.add(res.body);
    const stallsMs: number[] = [];
    let last = performance.now();
    const noteGap = () => {
      const gap = performance.now() - last;
      if (gap >= o.stallMs) stallsMs.push(gap);
      last = performance.now();
    };
    let ending: WatchRecord['ending'] = 'clean';
    try {
      for await (const _chunk of res.body) noteGap();
      noteGap();
    } catch {
      noteGap();
      ending = stopped ? 'open at stop' : 'cut';
    }
    open.delete(res.body);
    watches.push({ target, openedAt, ending, stallsMs });
  }

  const loops = [...Array.from({ length: o.writers }, (_, i) => writer(i)), ...Array.from({ length: o.reflectors }, () => reflector())];
  return {
    async stop() {
      stopped = true;
      // Watches open now are ended by the client: their silence so far still counts.
      for (const body of open) body.destroy();
      await Promise.all(loops);
      await dispatcher.close();
      return { requests, watches };
    },
  };
}
