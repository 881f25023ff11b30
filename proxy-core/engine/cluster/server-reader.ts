// The core's own reads of each apiserver (discovery, health): a small undici Agent per server,
// kept apart from the data-path pools so a probe never queues behind a client's long list or watch.
// Readiness probes go on a connection of their own each time, with a shorter connect timeout: a
// silent link (a blackholed address, a hung process) fails the TCP or TLS handshake quickly, where a
// request on a kept-alive connection would wait the whole read timeout; a server that is merely slow
// to answer still connects at once and is judged by its answer.
import { Agent, buildConnector, request } from '../upstream/undici.js';
import { proxyConnector } from '../upstream/proxy-connector.js';
import { serverTls } from '../upstream/server-tls.js';
import { timedConnector } from './probe-connector.js';
import type { ServerConfig } from './server-config.js';

export interface ServerReadResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface ServerReadStream {
  readonly status: number;
  readonly body: AsyncIterable<Buffer> & { text(): Promise<string> };
}

export class AgentServerReader {
  private readonly agent: Agent;
  private readonly probeAgent: Agent;

  constructor(
    readonly server: ServerConfig,
    private readonly timeoutMs = 5_000,
    probeConnectTimeoutMs = timeoutMs,
  ) {
    const tls = serverTls(server);
    this.agent = new Agent({
      // Two are held by the CRD and APIService watches (servers/api-watch.ts) on the server they go through.
      connections: 6,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // Through a proxy (kubeconfig proxy-url, HTTPS_PROXY) the same TLS settings apply inside the tunnel.
      connect: server.proxy ? proxyConnector({ proxy: new URL(server.proxy), tls, timeoutMs }) : tls,
    });
    const connect = server.proxy
      ? proxyConnector({ proxy: new URL(server.proxy), tls, timeoutMs })
      : buildConnector({ ...tls, timeout: timeoutMs });
    this.probeAgent = new Agent({
      connections: 2,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: timedConnector(connect, probeConnectTimeoutMs),
    });
  }

  get(path: string, headers: Record<string, string> = {}): Promise<ServerReadResponse> {
    return this.read(path, headers, this.agent, false);
  }

  /** get() with the body as bytes (a protobuf document). */
  async getBytes(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: Buffer }> {
    const res = await this.send(path, headers, this.agent, false);
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  }

  /**
   * A streamed read without a body timeout (a Kubernetes watch): the answer's status, headers and its
   * body as it comes. It ends when the server ends it, or when `signal` aborts.
   */
  async stream(path: string, signal: AbortSignal): Promise<ServerReadStream> {
    const token = this.server.bearerToken?.();
    const res = await request(new URL(path, this.server.url), {
      method: 'GET',
      dispatcher: this.agent,
      bodyTimeout: 0,
      headers: { 'user-agent': 'peerscope', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal,
    });
    if (res.statusCode === 401 && token) this.server.onUnauthorized?.();
    return { status: res.statusCode, body: res.body };
  }

  /** A read on a new connection, closed after the answer: it fails within the probe connect timeout on a silent link. */
  probe(path: string): Promise<ServerReadResponse> {
    return this.read(path, {}, this.probeAgent, true);
  }

  private async read(path: string, headers: Record<string, string>, agent: Agent, reset: boolean): Promise<ServerReadResponse> {
    const res = await this.send(path, headers, agent, reset);
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }

  private async send(path: string, headers: Record<string, string>, agent: Agent, reset: boolean) {
    const token = this.server.bearerToken?.();
    const res = await request(new URL(path, this.server.url), {
      method: 'GET',
      dispatcher: agent,
      reset,
      headers: { 'user-agent': 'peerscope', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    // client-go's exec authenticator runs the plugin again after a 401; a token file is re-read.
    if (res.statusCode === 401 && token) this.server.onUnauthorized?.();
    return res;
  }

  async close(): Promise<void> {
    await Promise.all([closeWithin(this.agent), closeWithin(this.probeAgent)]);
  }
}

/**
 * Closes an agent gracefully, or destroys it after `ms`: undici's close() never resolves once a
 * request on it failed its TLS handshake with ERR_TLS_CERT_ALTNAME_INVALID while the agent was
 * closing (a server whose certificate names another host; reachability.test.ts), and a server list
 * or `servers` must still close.
 */
async function closeWithin(agent: Agent, ms = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    agent.close().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  if (!closed) await agent.destroy();
}

/** One line for an error of a read (the core's own), e.g. "connect ECONNREFUSED 127.0.0.1:6443". */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    const code = (err as NodeJS.ErrnoException).code;
    if (cause instanceof Error && cause.message && cause.message !== err.message) return `${err.message}: ${cause.message}`;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
