// CoreClient over HTTP + Server-Sent Events (browser mode). Calls are POST /api/rpc/<method> with the
// method's argument object; pushed events come from GET /api/events. The event stream is read with
// fetch rather than EventSource so the token travels in the Authorization header, never in a URL.
// The client itself is the contract's (createCoreClient): every payload is validated before the UI sees it.
import {
  callErrorSchema,
  createCoreClient,
  fromCallError,
  PeerscopeError,
  type CoreClient,
  type CoreClientMethod,
  type PeerscopeErrorCode,
  RECORDING_UPLOAD_PATH,
  recordingsSchema,
  type Recordings,
} from '../../../proxy-core/contract/index.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

/** Browser mode only: a recording file's bytes sent to the UI server, copied into its folder and opened. */
export interface RecordingUploader {
  uploadRecording(file: Blob, name: string): Promise<Recordings>;
}

/** The uploader of a client that has one (the HTTP transport's); none in the desktop app (it has a dialog). */
export function uploaderOf(client: CoreClient): RecordingUploader | undefined {
  const upload = (client as Partial<RecordingUploader>).uploadRecording;
  return typeof upload === 'function' ? { uploadRecording: upload } : undefined;
}

export interface HttpCoreClient extends CoreClient, RecordingUploader {
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

export interface HttpCoreClientOptions {
  readonly token: string;
  /** Default: the page's own origin. */
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
}

/** A refused or failed call: the code the UI server sent (contract/errors.ts) and the HTTP status. */
export class CoreCallError extends PeerscopeError {
  override readonly name = 'CoreCallError';
  constructor(
    code: PeerscopeErrorCode,
    message: string,
    readonly status: number,
  ) {
    super(code, message);
  }
}

export function createHttpCoreClient(options: HttpCoreClientOptions): HttpCoreClient {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl ?? '';
  const authorization = `Bearer ${options.token}`;
  const events = createEventStream(doFetch, `${base}/api/events`, authorization);

  async function call(method: CoreClientMethod, input: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await doFetch(`${base}/api/rpc/${method}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(input ?? {}),
        cache: 'no-store',
      });
    } catch {
      throw new CoreCallError('PEERSCOPE_ERR_TRANSPORT', `${method}: the Peerscope core cannot be reached`, 0);
    }
    return answerOf(response, method);
  }

  /** The JSON an answer carries, or its failure thrown with the code the UI server sent. */
  async function answerOf(response: Response, method: string): Promise<unknown> {
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      throw new CoreCallError('PEERSCOPE_ERR_TRANSPORT', `${method}: the answer is not JSON (HTTP ${response.status})`, response.status);
    }
    if (!response.ok) {
      if (response.status === 401) events.setConnection('unauthorized');
      const sent = callErrorSchema.safeParse(typeof body === 'object' && body && 'error' in body ? body.error : undefined);
      if (!sent.success) throw new CoreCallError('PEERSCOPE_ERR_TRANSPORT', `${method}: HTTP ${response.status}`, response.status);
      const { code, message } = fromCallError(sent.data);
      throw new CoreCallError(code, message, response.status);
    }
    return body;
  }

  async function uploadRecording(file: Blob, name: string): Promise<Recordings> {
    let response: Response;
    try {
      response = await doFetch(`${base}${RECORDING_UPLOAD_PATH}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/octet-stream', 'x-peerscope-file-name': encodeURIComponent(name) },
        body: file,
        cache: 'no-store',
      });
    } catch {
      throw new CoreCallError('PEERSCOPE_ERR_TRANSPORT', `${name}: the Peerscope core cannot be reached`, 0);
    }
    return recordingsSchema.parse(await answerOf(response, 'uploadRecording'));
  }

  const client = createCoreClient({ call, subscribe: events.subscribe });
  return { ...client, uploadRecording, connection: events.connection, onConnection: events.onConnection };
}

type Fetch = NonNullable<HttpCoreClientOptions['fetch']>;

/** One event stream per page, shared by every subscriber, reopened with backoff when it drops. */
function createEventStream(doFetch: Fetch, url: string, authorization: string) {
  const listeners = new Set<(raw: unknown) => void>();
  const connectionListeners = new Set<(s: ConnectionState) => void>();
  let connection: ConnectionState = 'connecting';
  let stream: AbortController | undefined;
  function setConnection(state: ConnectionState) {
    if (state === connection) return;
    connection = state;
    for (const l of connectionListeners) l(state);
  }

  async function run(abort: AbortController) {
    let backoffMs = 500;
    while (!abort.signal.aborted) {
      try {
        const response = await doFetch(url, {
          headers: { authorization, accept: 'text/event-stream' },
          signal: abort.signal,
          cache: 'no-store',
        });
        if (response.status === 401) {
          setConnection('unauthorized');
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        setConnection('live');
        backoffMs = 500;
        await readFrames(response.body, (data) => {
          const event: unknown = JSON.parse(data);
          for (const l of listeners) l(event);
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
    setConnection,
    connection: () => connection,
    onConnection(listener: (s: ConnectionState) => void) {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
    subscribe(listener: (raw: unknown) => void) {
      listeners.add(listener);
      if (!stream) {
        stream = new AbortController();
        void run(stream);
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
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (data) onData(data);
    }
  }
}
