// Each real server's own Mixed Version Proxy, as seen from outside: the facts its readiness checks and
// identity lease show (../own-mvp.ts) and, from one read of its /metrics on a period
// (../metrics/read-metrics.ts), its own peer-proxy counters and its request counts and deprecated
// APIs requested. Only a ready server whose checks are a kube-apiserver's is read: a simulated or
// stand-in server has no such counters.
import type { OwnMvp } from '../../../contract/own-mvp.js';
import type { HealthState } from '../../../contract/servers.js';
import type { ServerMetrics } from '../../../contract/server-metrics.js';
import { readServerMetrics, type ServerMetricsRead } from '../metrics/read-metrics.js';
import { unreadServerMetrics } from '../metrics/request-metrics.js';
import { looksLikeKubeApiserver, NOT_READ, ownMvpOf } from '../own-mvp.js';
import type { ServerConfig, ServerReader } from '../server-config.js';

/** A server as the poll sees it. */
export interface OwnMvpServer {
  readonly config: ServerConfig;
  readonly reader: ServerReader;
  readonly health: HealthState;
  readonly readyChecks?: readonly string[] | undefined;
  readonly gitVersion?: string | undefined;
}

export interface OwnMvpPollOptions {
  /** The servers in the cluster now (gone ones left out). */
  readonly servers: () => readonly OwnMvpServer[];
  /** A server's counters were read. */
  readonly onRead?: (name: string) => void;
}

export class OwnMvpPoll {
  private readonly metrics = new Map<string, { read?: ServerMetricsRead }>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: OwnMvpPollOptions) {}

  add(name: string): void {
    this.metrics.set(name, {});
  }

  /** Drops a server's counters; a read of it still running lands nowhere. */
  forget(name: string): void {
    this.metrics.delete(name);
  }

  /** Reads every server worth reading now, then every `intervalMs` (0: only on demand). */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.closed) return;
    void this.readAll();
    this.timer = setInterval(() => void this.readAll(), intervalMs).unref();
  }

  /** Reads every ready real server's /metrics. */
  readAll(): Promise<void> {
    const worth = this.options
      .servers()
      .filter((s) => s.health === 'ready' && s.config.source !== 'sim' && looksLikeKubeApiserver(s.readyChecks));
    return Promise.all(
      worth.map(async (s) => {
        const slot = this.metrics.get(s.config.name);
        if (!slot) return;
        const read = await readServerMetrics(s.reader, slot.read?.server);
        if (this.closed || this.metrics.get(s.config.name) !== slot) return;
        slot.read = read;
        this.options.onRead?.(s.config.name);
      }),
    ).then(() => undefined);
  }

  /** The server's own MVP as far as it can be told, its summary naming it `shownAs`; undefined for a simulated server. */
  ownMvp(s: Omit<OwnMvpServer, 'reader' | 'health'>, shownAs = s.config.name): OwnMvp | undefined {
    if (s.config.source === 'sim') return undefined;
    const name = s.config.name;
    return ownMvpOf({
      name: shownAs,
      ...(s.readyChecks ? { readyChecks: s.readyChecks } : {}),
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      ...(s.config.source === 'lease' ? { advertisedAddress: new URL(s.config.url).host } : {}),
      metrics: this.metrics.get(name)?.read?.ownProxy ?? NOT_READ,
    });
  }

  /** What the server's /metrics counts of the requests it answered; undefined for a simulated server. */
  apiserverMetrics(config: ServerConfig): ServerMetrics | undefined {
    if (config.source === 'sim') return undefined;
    return this.metrics.get(config.name)?.read?.server ?? unreadServerMetrics('not-read');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
