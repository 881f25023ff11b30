// The apiservers the core routes between: for each, health from periodic /readyz?verbose and
// /version probes, and its own discovery, re-read on a period, on demand, and whenever a probe sees
// it come back or change release. A failed discovery read keeps the previous document (stale),
// never "serves nothing" — that is how a peer that went down after the last sync stays a
// candidate (rule §4.4, conformance C5/C40) while one never read is not (C7).
// The set itself follows the cluster (sync): a server found anew joins and is probed; one that left
// is marked gone — no longer probed, never a handling server or reroute target, its last document
// kept so a request for what only it served is a 503 naming it (as for C40) — and removed from the
// set after a retention period (docs/decisions.md).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { PeerscopeError } from '../../contract/errors.js';
import { EventEmitter } from 'node:events';
import type { HealthSample, PeerHealth, PeerStatus } from '../../contract/peers.js';
import { fetchServerDiscovery, type ServerDiscovery } from '../discovery/fetch.js';
import { RingBuffer } from '../telemetry/ring-buffer.js';
import { ControlClient, describeError } from './control-client.js';
import { looksLikeKubeApiserver, NOT_READ, ownMvpOf } from './own-mvp.js';
import { readOwnProxyMetrics } from './own-proxy-metrics.js';
import type { OwnProxyMetrics } from '../../contract/own-mvp.js';
import { redactProxy } from '../upstream/proxy-config.js';
import type { KnownServer, ServerConfig, ServerUpdate } from './server-config.js';

export interface PeerSetOptions {
  readonly probeIntervalMs?: number;
  readonly discoveryIntervalMs?: number;
  readonly timeoutMs?: number;
  /** Health samples kept per server. */
  readonly historySize?: number;
  /** How long a server that left the cluster stays listed as gone (default 10 minutes). */
  readonly goneRetentionMs?: number;
  /** Period of the read of each real server's /metrics for its own peer-proxy counters (default 15 s; 0 = never). */
  readonly ownMetricsIntervalMs?: number;
}

export const DEFAULT_GONE_RETENTION_MS = 10 * 60_000;

interface Peer {
  config: ServerConfig;
  client: ControlClient;
  health: PeerHealth;
  failingChecks: string[];
  /** Every check the last readable /readyz?verbose listed: how its own Mixed Version Proxy is told (own-mvp.ts). */
  readyChecks?: string[];
  ownMetrics?: OwnProxyMetrics;
  gitVersion?: string;
  latencyMs?: number;
  lastProbeAt?: number;
  lastError?: string;
  discovery?: ServerDiscovery;
  discoveryError?: string;
  discoveryInFlight?: Promise<void>;
  /** Set while a server that came back or changed release is being re-read: its old document is not to be trusted. */
  rereading?: Promise<void>;
  history: RingBuffer<HealthSample>;
  /** Set while the server is gone from the cluster. */
  gone?: { at: number; reason: string; removeAt: number; timer: NodeJS.Timeout };
}

export type MembershipChange = 'added' | 'gone' | 'back' | 'removed' | 'changed';

export interface PeerSetEvents {
  /** Health or version of a server changed. */
  health: [name: string];
  /** A server's discovery content changed (or became stale / readable again). */
  discovery: [name: string];
  /** A server joined, left (gone), came back, was removed after being gone, or got another address. */
  membership: [name: string, change: MembershipChange];
}

export class PeerSet extends EventEmitter<PeerSetEvents> {
  private readonly peers = new Map<string, Peer>();
  private timers: NodeJS.Timeout[] = [];
  private recheckInFlight: Promise<void> | undefined;
  private recheckQueued: Promise<void> | undefined;
  /** performance.now() when the latest re-check started. */
  private recheckStartedAt = -Infinity;
  private closed = false;
  private readonly probeIntervalMs: number;
  private readonly discoveryIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly historySize: number;
  private readonly goneRetentionMs: number;
  private readonly ownMetricsIntervalMs: number;
  private started = false;

  constructor(servers: readonly ServerConfig[], options: PeerSetOptions = {}) {
    super();
    this.probeIntervalMs = options.probeIntervalMs ?? 2_000;
    this.discoveryIntervalMs = options.discoveryIntervalMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.historySize = options.historySize ?? 1_800;
    this.goneRetentionMs = options.goneRetentionMs ?? DEFAULT_GONE_RETENTION_MS;
    this.ownMetricsIntervalMs = options.ownMetricsIntervalMs ?? 15_000;
    for (const s of servers) this.add(s);
  }

  private add(config: ServerConfig): Peer {
    if (this.peers.has(config.name)) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `two servers are named "${config.name}"`);
    const peer: Peer = {
      config,
      client: new ControlClient(config, this.timeoutMs),
      health: 'unknown',
      failingChecks: [],
      history: new RingBuffer(this.historySize),
    };
    this.peers.set(config.name, peer);
    return peer;
  }

  /** Every server in the set, gone ones included (they keep their last discovery until removed). */
  names(): string[] {
    return [...this.peers.keys()];
  }

  /** The servers the set routes to now, for a refresh of the server list (gone ones left out). */
  known(): KnownServer[] {
    return [...this.peers.values()].filter((p) => !p.gone).map((p) => ({ config: p.config, reader: p.client, ready: p.health === 'ready' }));
  }

  /**
   * Applies a refresh of the server list: a new server joins (probed and read at once), a gone one that
   * is found again comes back, a known one at another address or with other TLS settings is
   * reconnected, and the servers named in `update.gone` are marked gone. Any other server is kept as
   * it is: a refresh that could not read a list says nothing about the servers it lists.
   */
  sync(update: ServerUpdate): { added: string[]; gone: string[]; back: string[] } {
    const out = { added: [] as string[], gone: [] as string[], back: [] as string[] };
    if (this.closed) return out;
    for (const config of update.servers) {
      const peer = this.peers.get(config.name);
      if (!peer) {
        this.add(config);
        out.added.push(config.name);
        this.emit('membership', config.name, 'added');
        this.emit('health', config.name);
        if (this.started) void this.probe(config.name).then(() => this.refreshDiscovery(config.name));
        continue;
      }
      const moved = !sameEndpoint(peer.config, config);
      if (moved) {
        const old = peer.client;
        peer.client = new ControlClient(config, this.timeoutMs);
        void old.close().catch(() => undefined);
      }
      peer.config = config;
      if (peer.gone) {
        clearTimeout(peer.gone.timer);
        peer.gone = undefined;
        Object.assign(peer, { health: 'unknown', failingChecks: [], lastError: undefined });
        out.back.push(config.name);
        this.emit('membership', config.name, 'back');
        this.emit('health', config.name);
      } else if (moved) {
        this.emit('membership', config.name, 'changed');
      }
      if ((out.back.includes(config.name) || moved) && this.started) void this.probe(config.name).then(() => this.refreshDiscovery(config.name));
    }
    for (const [name, reason] of update.gone) {
      if (this.markGone(name, reason)) out.gone.push(name);
    }
    return out;
  }

  private markGone(name: string, reason: string): boolean {
    const peer = this.peers.get(name);
    if (!peer || peer.gone || this.closed) return false;
    const at = Date.now();
    const timer = setTimeout(() => this.remove(name), this.goneRetentionMs).unref();
    peer.gone = { at, reason, removeAt: at + this.goneRetentionMs, timer };
    Object.assign(peer, { health: 'gone', failingChecks: [], lastError: `gone: ${reason}`, lastProbeAt: at });
    peer.history.push({ at, health: 'gone', ...(peer.gitVersion ? { gitVersion: peer.gitVersion } : {}) });
    this.emit('membership', name, 'gone');
    this.emit('health', name);
    return true;
  }

  private remove(name: string): void {
    const peer = this.peers.get(name);
    if (!peer?.gone || this.closed) return;
    this.peers.delete(name);
    void peer.client.close().catch(() => undefined);
    this.emit('membership', name, 'removed');
    this.emit('health', name);
    // Its GVRs leave the route table and the merged discovery.
    this.emit('discovery', name);
  }

  config(name: string): ServerConfig | undefined {
    return this.peers.get(name)?.config;
  }

  /** First probe and discovery of every server, then the periodic loops. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all(this.names().map(async (n) => {
      await this.probe(n);
      await this.refreshDiscovery(n);
    }));
    if (this.closed) return;
    this.timers.push(setInterval(() => void this.probeAll(), this.probeIntervalMs).unref());
    this.timers.push(setInterval(() => void this.refreshAllDiscovery(), this.discoveryIntervalMs).unref());
    if (this.ownMetricsIntervalMs > 0) {
      void this.readOwnMetrics();
      this.timers.push(setInterval(() => void this.readOwnMetrics(), this.ownMetricsIntervalMs).unref());
    }
  }

  /** Reads every ready real server's own peer-proxy counters (simulated servers have none). */
  readOwnMetrics(): Promise<void> {
    // Only servers whose checks are a kube-apiserver's: anything else has no such counters to read.
    return Promise.all([...this.peers.values()].filter((p) => !p.gone && p.health === 'ready' && p.config.source !== 'sim' && looksLikeKubeApiserver(p.readyChecks)).map(async (p) => {
      const read = await readOwnProxyMetrics(p.client);
      if (this.closed || this.peers.get(p.config.name) !== p) return;
      p.ownMetrics = read;
      this.emit('health', p.config.name);
    })).then(() => undefined);
  }

  probeAll(): Promise<void> {
    return Promise.all(this.names().map((n) => this.probe(n))).then(() => undefined);
  }

  refreshAllDiscovery(): Promise<void> {
    return Promise.all(this.names().map((n) => this.refreshDiscovery(n))).then(() => undefined);
  }

  async probe(name: string): Promise<void> {
    const peer = this.peers.get(name);
    if (!peer || peer.gone || this.closed) return;
    const started = performance.now();
    let health: PeerHealth;
    let failing: string[] = [];
    let checks = peer.readyChecks;
    let gitVersion = peer.gitVersion;
    let error: string | undefined;
    try {
      const [ready, version] = await Promise.all([peer.client.get('/readyz?verbose'), peer.client.get('/version')]);
      failing = [...ready.body.matchAll(/^\[-\]([^\s]+) failed/gm)].map((m) => m[1] ?? '');
      if (ready.status === 200 || failing.length) checks = [...ready.body.matchAll(/^\[[+-]\]([^\s]+)/gm)].map((m) => m[1] ?? '');
      if (ready.status === 200) health = 'ready';
      else health = failing.some((c) => c.includes('shutdown')) ? 'draining' : 'not-ready';
      if (version.status === 200) gitVersion = (JSON.parse(version.body) as { gitVersion?: string }).gitVersion ?? gitVersion;
    } catch (err) {
      health = 'unreachable';
      error = describeError(err);
    }
    // Closed, gone, or reconnected elsewhere while the probe ran: its answer is not this server's now.
    if (this.closed || peer.gone || this.peers.get(name) !== peer) return;
    const latencyMs = performance.now() - started;
    const wasReachable = peer.health !== 'unreachable' && peer.health !== 'unknown';
    const changed = health !== peer.health || gitVersion !== peer.gitVersion || failing.join() !== peer.failingChecks.join();
    const versionChanged = gitVersion !== peer.gitVersion;
    Object.assign(peer, { health, failingChecks: failing, readyChecks: checks, gitVersion, latencyMs, lastProbeAt: Date.now(), lastError: error });
    peer.history.push({ at: Date.now(), health, ...(health !== 'unreachable' ? { latencyMs } : {}), ...(gitVersion ? { gitVersion } : {}) });
    if (changed) this.emit('health', name);
    // A server that came back, or runs another release now, may serve other GVRs: read it again.
    if ((health === 'ready' && (!wasReachable || versionChanged)) || (versionChanged && health !== 'unreachable')) {
      const reread = this.refreshDiscovery(name).finally(() => {
        if (peer.rereading === reread) peer.rereading = undefined;
      });
      peer.rereading = reread;
    }
  }

  /**
   * Before the port answers "nobody serves this GVR", look again at every server it believes out of
   * service or whose discovery is not current: one that just came back at a new release may serve it.
   * The look must start no earlier than `since` (the request's arrival, performance.now()): a look
   * taken before could have missed a server that came back in between, and the request would get a
   * false 404. Requests share looks: those arriving while one runs share the next, so there is at
   * most one running and one waiting, and none at all while every server is in service.
   */
  recheckOutOfService(since = performance.now()): Promise<void> {
    if (this.recheckStartedAt >= since) return this.recheckInFlight ?? Promise.resolve();
    if (!this.recheckInFlight) return this.startRecheck();
    this.recheckQueued ??= this.recheckInFlight.then(() => {
      this.recheckQueued = undefined;
      return this.startRecheck();
    });
    return this.recheckQueued;
  }

  private startRecheck(): Promise<void> {
    this.recheckStartedAt = performance.now();
    const suspects = [...this.peers.values()].filter((p) => !p.gone).filter((p) => p.health !== 'ready' || !p.discovery || p.discoveryError !== undefined || p.discoveryInFlight !== undefined);
    if (suspects.length === 0) return Promise.resolve();
    const recheck: Promise<void> = Promise.all(suspects.map(async (p) => {
      // A read already under way is the freshest answer there is: wait for it instead of probing.
      if (p.discoveryInFlight && p.health === 'ready') return p.discoveryInFlight;
      await this.probe(p.config.name);
      // probe() starts a discovery read when the server is back; wait for it to land.
      if (p.discoveryInFlight) await p.discoveryInFlight;
      else if (p.health === 'ready' && (!p.discovery || p.discoveryError !== undefined)) await this.refreshDiscovery(p.config.name);
    })).then(() => undefined).finally(() => {
      if (this.recheckInFlight === recheck) this.recheckInFlight = undefined;
    });
    this.recheckInFlight = recheck;
    return recheck;
  }


  refreshDiscovery(name: string): Promise<void> {
    const peer = this.peers.get(name);
    if (!peer || peer.gone || this.closed) return Promise.resolve();
    peer.discoveryInFlight ??= (async () => {
      try {
        const next = await fetchServerDiscovery(peer.client, peer.discovery);
        const changed = next.contentHash !== peer.discovery?.contentHash || peer.discoveryError !== undefined;
        peer.discovery = next;
        peer.discoveryError = undefined;
        if (changed && !this.closed) this.emit('discovery', name);
      } catch (err) {
        const first = peer.discoveryError === undefined;
        peer.discoveryError = describeError(err);
        if (first && !this.closed) this.emit('discovery', name);
      } finally {
        peer.discoveryInFlight = undefined;
      }
    })();
    return peer.discoveryInFlight;
  }

  /**
   * Resolves when the discovery of a server that just came back (or changed release) has been read
   * again; undefined when nothing is pending. Routing waits for it rather than trust the old document.
   */
  rereadPending(name: string): Promise<void> | undefined {
    return this.peers.get(name)?.rereading;
  }

  discovery(name: string): ServerDiscovery | undefined {
    return this.peers.get(name)?.discovery;
  }

  health(name: string): PeerHealth {
    return this.peers.get(name)?.health ?? 'unknown';
  }

  /**
   * A forward to `name` could not connect: stop handing it requests now (as a load balancer's passive
   * health check does) instead of waiting for the next probe, which will bring it back when it answers.
   */
  reportUnreachable(name: string, error: string): void {
    const peer = this.peers.get(name);
    if (!peer || peer.gone || peer.health === 'unreachable' || this.closed) return;
    Object.assign(peer, { health: 'unreachable', lastError: error, lastProbeAt: Date.now() });
    peer.history.push({ at: Date.now(), health: 'unreachable', ...(peer.gitVersion ? { gitVersion: peer.gitVersion } : {}) });
    this.emit('health', name);
  }

  lastError(name: string): string | undefined {
    return this.peers.get(name)?.lastError;
  }

  status(name: string): PeerStatus | undefined {
    const p = this.peers.get(name);
    if (!p) return undefined;
    const d = p.discovery;
    return {
      name,
      url: p.config.url,
      source: p.config.source ?? 'flag',
      health: p.health,
      failingChecks: p.failingChecks,
      ...(p.gitVersion ? { gitVersion: p.gitVersion } : {}),
      ...(p.latencyMs !== undefined ? { latencyMs: Math.round(p.latencyMs * 100) / 100 } : {}),
      ...(p.lastProbeAt ? { lastProbeAt: p.lastProbeAt } : {}),
      ...(p.lastError ? { lastError: p.lastError } : {}),
      ...(p.config.proxy ? { proxy: redactProxy(new URL(p.config.proxy)) } : {}),
      ...(p.gone ? { gone: { at: p.gone.at, reason: p.gone.reason, removeAt: p.gone.removeAt } } : {}),
      discovery: {
        state: d ? (p.discoveryError ? 'stale' : 'ok') : 'none',
        ...(d ? { source: d.source, fetchedAt: d.fetchedAt, changedAt: d.changedAt } : {}),
        gvrCount: d?.gvrs.length ?? 0,
        ...(p.discoveryError ? { error: p.discoveryError } : {}),
      },
      ...(p.config.source !== 'sim' ? { ownMvp: ownMvpOf({ name, ...(p.readyChecks ? { readyChecks: p.readyChecks } : {}), ...(p.gitVersion ? { gitVersion: p.gitVersion } : {}), ...(p.config.source === 'lease' ? { advertisedAddress: new URL(p.config.url).host } : {}), metrics: p.ownMetrics ?? NOT_READ }) } : {}),
    };
  }

  statuses(): PeerStatus[] {
    return this.names().map((n) => this.status(n) as PeerStatus);
  }

  history(name: string): HealthSample[] {
    return this.peers.get(name)?.history.recent() ?? [];
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const p of this.peers.values()) if (p.gone) clearTimeout(p.gone.timer);
    await Promise.all([...this.peers.values()].map((p) => p.client.close()));
  }
}

/** Two configs the core's reads reach the same way. */
function sameEndpoint(a: ServerConfig, b: ServerConfig): boolean {
  return a.url === b.url && a.ca === b.ca && a.servername === b.servername && a.proxy === b.proxy
    && a.clientCert?.cert === b.clientCert?.cert && a.clientCert?.key === b.clientCert?.key;
}
