// The apiservers the core routes between: for each, health from periodic /readyz?verbose and
// /version probes, and its own discovery, re-read on a period, on demand, and whenever a probe sees
// it come back or change release. A failed discovery read keeps the previous document (stale),
// never "serves nothing" — that is how a peer that went down after the last sync stays a
// candidate (spec §4.4, conformance C5/C40) while one never read is not (C7).
import { EventEmitter } from 'node:events';
import type { HealthSample, PeerHealth, PeerStatus } from '../../contract/peers.js';
import { fetchServerDiscovery, type ServerDiscovery } from '../discovery/fetch.js';
import { RingBuffer } from '../telemetry/ring-buffer.js';
import { ControlClient, describeError } from './control-client.js';
import type { ServerConfig } from './server-config.js';

export interface PeerSetOptions {
  readonly probeIntervalMs?: number;
  readonly discoveryIntervalMs?: number;
  readonly timeoutMs?: number;
  /** Health samples kept per server. */
  readonly historySize?: number;
}

interface Peer {
  config: ServerConfig;
  client: ControlClient;
  health: PeerHealth;
  failingChecks: string[];
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
}

export interface PeerSetEvents {
  /** Health or version of a server changed. */
  health: [name: string];
  /** A server's discovery content changed (or became stale / readable again). */
  discovery: [name: string];
}

export class PeerSet extends EventEmitter<PeerSetEvents> {
  private readonly peers = new Map<string, Peer>();
  private timers: NodeJS.Timeout[] = [];
  private recheckInFlight: Promise<void> | undefined;
  private lastRecheckAt = 0;
  private closed = false;
  private readonly probeIntervalMs: number;
  private readonly discoveryIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly historySize: number;

  constructor(servers: readonly ServerConfig[], options: PeerSetOptions = {}) {
    super();
    this.probeIntervalMs = options.probeIntervalMs ?? 2_000;
    this.discoveryIntervalMs = options.discoveryIntervalMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.historySize = options.historySize ?? 1_800;
    for (const s of servers) this.add(s);
  }

  private add(config: ServerConfig): void {
    if (this.peers.has(config.name)) throw new Error(`two servers are named "${config.name}"`);
    this.peers.set(config.name, {
      config,
      client: new ControlClient(config, this.timeoutMs),
      health: 'unknown',
      failingChecks: [],
      history: new RingBuffer(this.historySize),
    });
  }

  names(): string[] {
    return [...this.peers.keys()];
  }

  config(name: string): ServerConfig | undefined {
    return this.peers.get(name)?.config;
  }

  /** First probe and discovery of every server, then the periodic loops. */
  async start(): Promise<void> {
    await Promise.all(this.names().map(async (n) => {
      await this.probe(n);
      await this.refreshDiscovery(n);
    }));
    if (this.closed) return;
    this.timers.push(setInterval(() => void this.probeAll(), this.probeIntervalMs).unref());
    this.timers.push(setInterval(() => void this.refreshAllDiscovery(), this.discoveryIntervalMs).unref());
  }

  probeAll(): Promise<void> {
    return Promise.all(this.names().map((n) => this.probe(n))).then(() => undefined);
  }

  refreshAllDiscovery(): Promise<void> {
    return Promise.all(this.names().map((n) => this.refreshDiscovery(n))).then(() => undefined);
  }

  async probe(name: string): Promise<void> {
    const peer = this.peers.get(name);
    if (!peer || this.closed) return;
    const started = performance.now();
    let health: PeerHealth;
    let failing: string[] = [];
    let gitVersion = peer.gitVersion;
    let error: string | undefined;
    try {
      const [ready, version] = await Promise.all([peer.client.get('/readyz?verbose'), peer.client.get('/version')]);
      failing = [...ready.body.matchAll(/^\[-\]([^\s]+) failed/gm)].map((m) => m[1] ?? '');
      if (ready.status === 200) health = 'ready';
      else health = failing.some((c) => c.includes('shutdown')) ? 'draining' : 'not-ready';
      if (version.status === 200) gitVersion = (JSON.parse(version.body) as { gitVersion?: string }).gitVersion ?? gitVersion;
    } catch (err) {
      health = 'unreachable';
      error = describeError(err);
    }
    if (this.closed) return;
    const latencyMs = performance.now() - started;
    const wasReachable = peer.health !== 'unreachable' && peer.health !== 'unknown';
    const changed = health !== peer.health || gitVersion !== peer.gitVersion || failing.join() !== peer.failingChecks.join();
    const versionChanged = gitVersion !== peer.gitVersion;
    Object.assign(peer, { health, failingChecks: failing, gitVersion, latencyMs, lastProbeAt: Date.now(), lastError: error });
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
   * Coalesced, and at most once per `minIntervalMs`, so a stream of true 404s costs almost nothing.
   */
  recheckOutOfService(minIntervalMs = 50): Promise<void> {
    if (this.recheckInFlight) return this.recheckInFlight;
    if (Date.now() - this.lastRecheckAt < minIntervalMs) return Promise.resolve();
    const suspects = [...this.peers.values()].filter((p) => p.health !== 'ready' || !p.discovery || p.discoveryError !== undefined || p.discoveryInFlight !== undefined);
    if (suspects.length === 0) return Promise.resolve();
    this.lastRecheckAt = Date.now();
    this.recheckInFlight = Promise.all(suspects.map(async (p) => {
      // A read already under way is the freshest answer there is: wait for it instead of probing.
      if (p.discoveryInFlight && p.health === 'ready') return p.discoveryInFlight;
      await this.probe(p.config.name);
      // probe() starts a discovery read when the server is back; wait for it to land.
      if (p.discoveryInFlight) await p.discoveryInFlight;
      else if (p.health === 'ready' && (!p.discovery || p.discoveryError !== undefined)) await this.refreshDiscovery(p.config.name);
    })).then(() => undefined).finally(() => {
      this.recheckInFlight = undefined;
    });
    return this.recheckInFlight;
  }

  refreshDiscovery(name: string): Promise<void> {
    const peer = this.peers.get(name);
    if (!peer || this.closed) return Promise.resolve();
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
    if (!peer || peer.health === 'unreachable' || this.closed) return;
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
      discovery: {
        state: d ? (p.discoveryError ? 'stale' : 'ok') : 'none',
        ...(d ? { source: d.source, fetchedAt: d.fetchedAt, changedAt: d.changedAt } : {}),
        gvrCount: d?.gvrs.length ?? 0,
        ...(p.discoveryError ? { error: p.discoveryError } : {}),
      },
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
    await Promise.all([...this.peers.values()].map((p) => p.client.close()));
  }
}
