// One run of the traffic generator: what its clients share — the targets used round-robin, the
// token bucket every request takes from, the HTTP agent, the summary, the stop signals — and the
// one way a short request is sent and recorded.
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Agent, request } from '../../engine/upstream/undici.js';
import { seededRandom } from '../../engine/util/seeded-random.js';
import { TRAFFIC_CLIENTS, type TrafficClient } from './clients.js';
import type { Gvr } from './gvrs.js';
import { TokenBucket } from './token-bucket.js';
import type { AcknowledgedWrite, TrafficKind, TrafficOptions, TrafficResult, TrafficSummary } from './types.js';
import { emptyWatchCounts, type WatchSegment } from './watch-log.js';
import { answeredByOf, parseObject } from './wire.js';

export interface Answer {
  readonly status: number;
  readonly json?: Record<string, unknown>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class TrafficRun {
  readonly ns: string;
  readonly runId = randomBytes(3).toString('hex');
  readonly agent: Agent;
  readonly random: () => number;
  readonly bucket: TokenBucket;
  readonly summary: Mutable<TrafficSummary> = {
    total: 0,
    byStatus: {},
    byKind: {},
    notFound: [],
    writes: [] as AcknowledgedWrite[],
    uncertain: [],
    watchEvents: 0,
    watchReconnects: 0,
    watches: emptyWatchCounts(),
    watchSegments: [] as WatchSegment[],
  };
  // Watches are cut at once on stop; short requests get a grace first.
  readonly watchAbort = new AbortController();
  readonly requestAbort = new AbortController();
  stopping = false;
  private targetIndex = 0;
  private readonly baseHeaders: Record<string, string>;

  constructor(private readonly options: TrafficOptions) {
    this.ns = options.namespace ?? 'peerscope-traffic';
    this.agent = new Agent({ connections: 64, connect: options.ca ? { ca: options.ca } : {} });
    this.baseHeaders = { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
    this.random = seededRandom(options.seed ?? 1);
    this.bucket = new TokenBucket(Math.max(0, options.rps));
    setMaxListeners(0, this.watchAbort.signal, this.requestAbort.signal);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.random() * xs.length)] as T;
  }

  nextTarget(): string {
    return this.options.targets[this.targetIndex++ % this.options.targets.length] as string;
  }

  headersOf(client: TrafficClient): Record<string, string> {
    return { ...this.baseHeaders, 'user-agent': client.userAgent };
  }

  collection(g: Gvr): string {
    return `${g.group ? `/apis/${g.group}` : '/api'}/${g.version}${g.namespaced ? `/namespaces/${this.ns}` : ''}/${g.resource}`;
  }

  record(result: TrafficResult): void {
    const summary = this.summary;
    summary.total++;
    summary.byStatus[String(result.status)] = (summary.byStatus[String(result.status)] ?? 0) + 1;
    summary.byKind[result.kind] = (summary.byKind[result.kind] ?? 0) + 1;
    if (result.status === 404 && result.kind !== 'get' && result.kind !== 'delete') {
      summary.notFound.push({ gvr: result.gvr, path: result.path, target: result.target, at: result.at, kind: result.kind });
    }
    this.options.onResult?.(result);
  }

  /** One short request; takes a token first unless the caller already holds one. Undefined when stopped before it was sent. */
  async send(
    kind: TrafficKind,
    g: Gvr,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    paid = false,
    client = clientOf(kind),
  ): Promise<Answer | undefined> {
    if (!paid && !(await this.bucket.take())) return undefined;
    const headers = this.headersOf(client);
    const target = this.nextTarget();
    const started = performance.now();
    let status = 0;
    let answeredBy: string | undefined;
    let json: Record<string, unknown> | undefined;
    let error: string | undefined;
    try {
      const res = await request(`${target}${path}`, {
        method,
        dispatcher: this.agent,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: this.requestAbort.signal,
      });
      status = res.statusCode;
      answeredBy = answeredByOf(res.headers);
      json = parseObject(await res.body.text());
    } catch (err) {
      error = (err as Error).message;
    }
    // Cut by our own stop: not a result of the system under test.
    if (this.requestAbort.signal.aborted && status === 0) return { status };
    this.record({
      at: Date.now(),
      kind,
      method,
      path,
      gvr: g.key,
      status,
      ms: performance.now() - started,
      target,
      userAgent: client.userAgent,
      ...(answeredBy ? { answeredBy } : {}),
      ...(error ? { error } : {}),
    });
    return { status, ...(json ? { json } : {}) };
  }
}

function clientOf(kind: TrafficKind): TrafficClient {
  return kind === 'ns-sweep' ? TRAFFIC_CLIENTS.namespaceController : TRAFFIC_CLIENTS.kubectl;
}
