// One undici Pool per apiserver for the data path: keep-alive connections, TLS always verified
// against the server's CA, no body timeout (watches and log follows stay open for hours).
import { Pool } from 'undici';
import type { ServerConfig } from '../cluster/server-config.js';

export interface UpstreamOptions {
  readonly connections?: number;
  readonly connectTimeoutMs?: number;
  /** Time to the response headers; a list of a huge collection can take a while. */
  readonly headersTimeoutMs?: number;
}

export interface Upstream {
  readonly config: ServerConfig;
  readonly pool: Pool;
  readonly origin: URL;
  connectionsOpened: number;
}

export class Upstreams {
  private readonly byName = new Map<string, Upstream>();

  constructor(servers: readonly ServerConfig[], private readonly options: UpstreamOptions = {}) {
    this.setServers(servers);
  }

  get(name: string): Upstream | undefined {
    return this.byName.get(name);
  }

  /** Replaces the server list: new pools for new or changed servers, removed ones closed gracefully. */
  setServers(servers: readonly ServerConfig[]): void {
    const keep = new Set(servers.map((s) => s.name));
    for (const [name, u] of this.byName) {
      if (!keep.has(name)) {
        this.byName.delete(name);
        void u.pool.close();
      }
    }
    for (const config of servers) {
      const current = this.byName.get(config.name);
      if (current && current.config === config) continue;
      if (current) void current.pool.close();
      this.byName.set(config.name, this.create(config));
    }
  }

  private create(config: ServerConfig): Upstream {
    const origin = new URL(config.url);
    const pool = new Pool(origin.origin, {
      connections: this.options.connections ?? 64,
      connectTimeout: this.options.connectTimeoutMs ?? 10_000,
      headersTimeout: this.options.headersTimeoutMs ?? 60_000,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connect: {
        ...(config.ca ? { ca: config.ca } : {}),
        ...(config.servername ? { servername: config.servername } : {}),
        ...(config.clientCert ? { cert: config.clientCert.cert, key: config.clientCert.key } : {}),
      },
    });
    const upstream: Upstream = { config, pool, origin, connectionsOpened: 0 };
    pool.on('connect', () => {
      upstream.connectionsOpened++;
    });
    return upstream;
  }

  connectionsOpened(name: string): number {
    return this.byName.get(name)?.connectionsOpened ?? 0;
  }

  async close(): Promise<void> {
    const pools = [...this.byName.values()].map((u) => u.pool);
    this.byName.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
  }

  async destroy(): Promise<void> {
    const pools = [...this.byName.values()].map((u) => u.pool);
    this.byName.clear();
    await Promise.all(pools.map((p) => p.destroy()));
  }
}
