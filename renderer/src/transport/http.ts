// CoreClient over HTTP + Server-Sent Events (browser mode). Calls are POST /api/rpc/<method>; pushed
// events come from GET /api/events. The event stream is read with fetch rather than EventSource so
// the token travels in the Authorization header, never in a URL. Every payload is validated with the
// contract's schemas before the UI sees it.
import {
  coreClientMethods,
  coreEventSchema,
  type CoreClient,
  type CoreClientMethod,
  type CoreEvent,
} from '../../../proxy-core/contract/index.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

export interface HttpCoreClient extends CoreClient {
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

export interface HttpCoreClientOptions {
  readonly token: string;
  /** Default: the page's own origin. */
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
}

export class CoreCallError extends Error {
  override readonly name = 'CoreCallError';
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export function createHttpCoreClient(options: HttpCoreClientOptions): HttpCoreClient {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl ?? '';
  const authorization = `Bearer ${options.token}`;

  async function call<M extends CoreClientMethod>(method: M, args: unknown): Promise<unknown> {
    const response = await doFetch(`${base}/api/rpc/${method}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(args ?? {}),
      cache: 'no-store',
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      throw new CoreCallError(`${method}: the answer is not JSON (HTTP ${response.status})`, response.status);
    }
    if (!response.ok) {
      const message = typeof body === 'object' && body && 'error' in body ? String((body as { error: unknown }).error) : `HTTP ${response.status}`;
      if (response.status === 401) setConnection('unauthorized');
      throw new CoreCallError(message, response.status);
    }
    return coreClientMethods[method].result.parse(body);
  }

  // One event stream per page, shared by every subscriber, reopened with backoff when it drops.
  const listeners = new Set<(e: CoreEvent) => void>();
  const connectionListeners = new Set<(s: ConnectionState) => void>();
  let connection: ConnectionState = 'connecting';
  let stream: AbortController | undefined;
  function setConnection(state: ConnectionState) {
    if (state === connection) return;
    connection = state;
    for (const l of connectionListeners) l(state);
  }

  async function runStream(abort: AbortController) {
    let backoffMs = 500;
    while (!abort.signal.aborted) {
      try {
        const response = await doFetch(`${base}/api/events`, { headers: { authorization, accept: 'text/event-stream' }, signal: abort.signal, cache: 'no-store' });
        if (response.status === 401) {
          setConnection('unauthorized');
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        setConnection('live');
        backoffMs = 500;
        await readFrames(response.body, (data) => {
          const parsed = coreEventSchema.safeParse(JSON.parse(data));
          if (!parsed.success) return; // a newer core's event kind: ignore rather than break the stream
          for (const l of listeners) l(parsed.data);
        });
      } catch {
        // fall through to the reconnect below
      }
      if (abort.signal.aborted) return;
      setConnection('reconnecting');
      await new Promise((r) => setTimeout(r, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 10_000);
    }
  }

  return {
    getOverview: () => call('getOverview', {}) as ReturnType<CoreClient['getOverview']>,
    getRouteTable: () => call('getRouteTable', {}) as ReturnType<CoreClient['getRouteTable']>,
    getEvents: (args = {}) => call('getEvents', args) as ReturnType<CoreClient['getEvents']>,
    getHealthHistory: () => call('getHealthHistory', {}) as ReturnType<CoreClient['getHealthHistory']>,
    getDiscoveryViews: () => call('getDiscoveryViews', {}) as ReturnType<CoreClient['getDiscoveryViews']>,
    setDiscoveryMode: (mode) => call('setDiscoveryMode', { mode }) as ReturnType<CoreClient['setDiscoveryMode']>,
    setPolicy: (policy) => call('setPolicy', { policy }) as ReturnType<CoreClient['setPolicy']>,
    takeSnapshot: () => call('takeSnapshot', {}) as ReturnType<CoreClient['takeSnapshot']>,
    readSnapshot: (args) => call('readSnapshot', args) as ReturnType<CoreClient['readSnapshot']>,
    compareSnapshots: (args) => call('compareSnapshots', args) as ReturnType<CoreClient['compareSnapshots']>,
    getImpactReport: (args = {}) => call('getImpactReport', args) as ReturnType<CoreClient['getImpactReport']>,
    startRollout: () => call('startRollout', {}) as ReturnType<CoreClient['startRollout']>,
    pauseRollout: () => call('pauseRollout', {}) as ReturnType<CoreClient['pauseRollout']>,
    setTrafficRate: (rps) => call('setTrafficRate', { rps }) as ReturnType<CoreClient['setTrafficRate']>,
    subscribe(listener) {
      listeners.add(listener);
      if (!stream) {
        stream = new AbortController();
        void runStream(stream);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && stream) {
          stream.abort();
          stream = undefined;
          setConnection('connecting');
        }
      };
    },
    connection: () => connection,
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
  };
}

/** Splits a text/event-stream body into the data of each event (comments and retry lines skipped). */
export async function readFrames(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n');
      if (data) onData(data);
    }
  }
}
