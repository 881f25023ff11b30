// One undici Pool per apiserver for the data path: keep-alive connections, TLS always verified
// against the server's CA (or the system roots when none is given), no body timeout.
import { PeerscopeError } from '../../contract/errors.js';
import { Pool } from './undici.js';
import { proxyConnector } from './proxy-connector.js';
import { serverTls } from './server-tls.js';

/**
 * What the data path needs of one apiserver. The core's ServerConfig (cluster/server-config.ts, where
 * each field is described) is one; this layer sits below it and names only what it reads.
 */
export interface UpstreamServer {
  readonly name: string;
  readonly url: string;
  readonly ca?: string;
  readonly servername?: string;
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly proxy?: string;
  readonly bearerToken?: () => string | undefined;
  readonly onUnauthorized?: () => void;
}

export interface UpstreamOptions {
  readonly connections?: number;
  readonly connectTimeoutMs?: number;
  /** Time from the request to the response headers. */
  readonly headersTimeoutMs?: number;
}

// client-go's dialer waits 30 s; a local proxy in front of a rollout should notice a dead server sooner.
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
// kube-apiserver ends a non-long-running request itself after --request-timeout (60 s) with a 504
// Timeout Status; waiting a little longer lets that Status reach the client instead of our 503.
// Watches and log follows send their headers at once, so this never cuts them.
export const DEFAULT_HEADERS_TIMEOUT_MS = 70_000;
export const DEFAULT_CONNECTIONS = 64;
// TCP keep-alive after this long without a byte (undici's default is 60 s): a watch whose link went
// silent while the probes' own connections still work (a middlebox that dropped one flow) fails after
// it plus the kernel's probes — 10 s more on Node 24 (libuv ≥ 1.49 sends one a second, ten times);
// the system's 75 s × 9 on Node 20-22. The probes end such watches sooner when the server is silent
// as a whole (proxy/server-down.ts).
export const UPSTREAM_KEEPALIVE_IDLE_MS = 15_000;

export interface Upstream {
  readonly name: string;
  readonly pool: Pool;
  readonly origin: URL;
  /** Replaced in place when only the credential callback changes, so the pool is kept. */
  config: UpstreamServer;
  connectionsOpened: number;
}

/** Two configs that open identical connections: they can share one pool, and the core's reads reach them the same way. */
export function sameTransport(a: UpstreamServer, b: UpstreamServer): boolean {
  return (
    a.url === b.url &&
    a.ca === b.ca &&
    a.servername === b.servername &&
    a.proxy === b.proxy &&
    a.clientCert?.cert === b.clientCert?.cert &&
    a.clientCert?.key === b.clientCert?.key
  );
}

export class Upstreams {
  private readonly byName = new Map<string, Upstream>();

  constructor(
    servers: ReadonlyArray<UpstreamServer>,
    private readonly options: UpstreamOptions = {},
  ) {
    this.setServers(servers);
  }

  get(name: string): Upstream | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * Replaces the server list: new pools for new or changed servers; removed or replaced pools close
   * gracefully (requests in flight, watches included, finish on their old connections).
   */
  setServers(servers: ReadonlyArray<UpstreamServer>): void {
    const keep = new Set(servers.map((s) => s.name));
    for (const [name, upstream] of this.byName) {
      if (!keep.has(name)) {
        this.byName.delete(name);
        closeGracefully(upstream.pool);
      }
    }
    for (const config of servers) {
      const current = this.byName.get(config.name);
      if (current && sameTransport(current.config, config)) {
        current.config = config;
        continue;
      }
      if (current) closeGracefully(current.pool);
      this.byName.set(config.name, this.create(config));
    }
  }

  private create(config: UpstreamServer): Upstream {
    const origin = new URL(config.url);
    if (origin.protocol !== 'https:' && origin.protocol !== 'http:')
      throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `apiserver "${config.name}": unsupported URL scheme ${origin.protocol}`);
    const connectTimeout = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // Verification stays on: only the trust anchors and the expected name are configurable.
    const tls = serverTls(config);
    const pool = new Pool(origin.origin, {
      connections: this.options.connections ?? DEFAULT_CONNECTIONS,
      connectTimeout,
      headersTimeout: this.options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      // Like Go's http.Transport behind kube-apiserver's proxy: no body timeout. Watches and follows
      // stay open for hours, and a slow client's back-pressure legitimately stalls any body.
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      // Through the proxy, the same TLS settings apply inside the CONNECT tunnel.
      connect: config.proxy
        ? proxyConnector({ proxy: new URL(config.proxy), tls, timeoutMs: connectTimeout })
        : { ...tls, keepAliveInitialDelay: UPSTREAM_KEEPALIVE_IDLE_MS },
    });
    const upstream: Upstream = { name: config.name, config, pool, origin, connectionsOpened: 0 };
    pool.on('connect', () => {
      upstream.connectionsOpened++;
    });
    return upstream;
  }

  /** Connections opened so far to `name` (keep-alive reuse keeps this low; the bench reads it). */
  connectionsOpened(name: string): number {
    return this.byName.get(name)?.connectionsOpened ?? 0;
  }

  /** Waits for requests in flight, then closes every pool. */
  async close(): Promise<void> {
    const pools = this.takeAll();
    await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
  }

  /** Closes every pool now, failing requests in flight. */
  async destroy(): Promise<void> {
    const pools = this.takeAll();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }

  private takeAll(): Pool[] {
    const pools = [...this.byName.values()].map((u) => u.pool);
    this.byName.clear();
    return pools;
  }
}

function closeGracefully(pool: Pool): void {
  pool.close().catch(() => pool.destroy().catch(() => undefined));
}
