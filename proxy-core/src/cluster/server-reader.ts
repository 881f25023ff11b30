// The core's own reads of each apiserver (discovery, health): a small undici Agent per server,
// kept apart from the data-path pools so a probe never queues behind a client's long list or watch.
// Readiness probes go on a connection of their own each time, with a shorter connect timeout: a
// silent link (a blackholed address, a hung process) fails the TCP or TLS handshake quickly, where a
// request on a kept-alive connection would wait the whole read timeout; a server that is merely slow
// to answer still connects at once and is judged by its answer.
import { Agent, buildConnector, request } from '../upstream/undici.js';
import { proxyConnector } from '../upstream/proxy-connector.js';
import { timedConnector } from './probe-connector.js';
import type { ServerConfig } from './server-config.js';

export interface ServerReadResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export class AgentServerReader {
  private readonly agent: Agent;
  private readonly probeAgent: Agent;

  constructor(
    readonly server: ServerConfig,
    private readonly timeoutMs = 5_000,
    probeConnectTimeoutMs = timeoutMs,
  ) {
    const tls = {
      ...(server.ca ? { ca: server.ca } : {}),
      ...(server.servername ? { servername: server.servername } : {}),
      ...(server.clientCert ? { cert: server.clientCert.cert, key: server.clientCert.key } : {}),
    };
    this.agent = new Agent({
      connections: 4,
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

  /** A read on a new connection, closed after the answer: it fails within the probe connect timeout on a silent link. */
  probe(path: string): Promise<ServerReadResponse> {
    return this.read(path, {}, this.probeAgent, true);
  }

  private async read(path: string, headers: Record<string, string>, agent: Agent, reset: boolean): Promise<ServerReadResponse> {
    const token = this.server.bearerToken?.();
    const res = await request(new URL(path, this.server.url), {
      method: 'GET',
      dispatcher: agent,
      reset,
      headers: { 'user-agent': 'peerscope', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = await res.body.text();
    // client-go's exec authenticator runs the plugin again after a 401; a token file is re-read.
    if (res.statusCode === 401 && token) this.server.onUnauthorized?.();
    return { status: res.statusCode, headers: res.headers, body };
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.probeAgent.close()]);
  }
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
