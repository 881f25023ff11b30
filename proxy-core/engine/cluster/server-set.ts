// The apiservers the core routes between, behind one facade made of units with one job each (as
// Kubernetes' peerproxy keeps peer discovery apart from local discovery):
// - servers/membership.ts: the server list, following the cluster (sync); a server that left is gone —
//   no longer probed, never a handling server or reroute target, its last document kept so a request
//   for what only it served is a 503 naming it (as for C40) — and removed after a retention period;
// - servers/health-probe.ts: health from periodic /readyz?verbose and /version probes, and its history;
// - servers/discovery-cache.ts: each server's own discovery, re-read on a period, on demand, and
//   whenever a probe sees it come back or change release; a failed read keeps the previous document;
// - servers/api-watch.ts: a watch of CRDs and APIServices that re-reads every server's discovery at
//   once when one changes (the periodic re-read stays, as the fallback);
// - servers/recheck.ts: the look again at servers out of service before a 404/503;
// - servers/own-mvp-poll.ts: each real server's own Mixed Version Proxy and its peer-proxy counters.
// This file wires them: the events, the periodic loops, and one status per server.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { EventEmitter } from 'node:events';
import { serverLabel, type HealthSample, type HealthState, type ServerStatus } from '../../contract/servers.js';
import type { ServerDiscovery } from '../discovery/fetch.js';
import { missingRegistrations, type MissingRegistration } from '../discovery/missing-registration.js';
import { redactProxy } from '../upstream/proxy-config.js';
import { displayNames } from './display-names.js';
import { ApiWatch } from './servers/api-watch.js';
import { DiscoveryCache } from './servers/discovery-cache.js';
import { HealthProbe } from './servers/health-probe.js';
import { Membership, type MembershipChange, type SyncResult } from './servers/membership.js';
import { OwnMvpPoll, type OwnMvpServer } from './servers/own-mvp-poll.js';
import { OutOfServiceRecheck } from './servers/recheck.js';
import type { KnownServer, ServerConfig, ServerUpdate } from './server-config.js';

export { DEFAULT_GONE_RETENTION_MS, type MembershipChange } from './servers/membership.js';

export interface ServerSetOptions {
  readonly probeIntervalMs?: number;
  readonly discoveryIntervalMs?: number;
  readonly timeoutMs?: number;
  /** Health samples kept per server. */
  readonly historySize?: number;
  /** How long a server that left the cluster stays listed as gone (default 10 minutes). */
  readonly goneRetentionMs?: number;
  /** Period of the read of each real server's /metrics (its own peer-proxy counters, request counts, deprecated APIs; default 15 s; 0 = never). */
  readonly ownMetricsIntervalMs?: number;
  /**
   * Watch CRDs and APIServices through one ready server and re-read discovery when they change
   * (servers/api-watch.ts; default true). Off: only the periodic re-read.
   */
  readonly watchApis?: boolean;
}

export interface ServerSetEvents {
  /** Health or version of a server changed. */
  health: [name: string];
  /** A server's discovery content changed (or became stale / readable again). */
  discovery: [name: string];
  /** A server joined, left (gone), came back, was removed after being gone, or got another address. */
  membership: [name: string, change: MembershipChange];
  /** A line for the host's log (e.g. the CRD watch was refused and discovery is re-read on the period only). */
  notice: [line: string];
}

/**
 * A probe that cannot open a connection within three quarters of a probe interval finds the server
 * unreachable, so a silent link is told within two intervals of going silent (the next probe starts
 * within one). At least 1.5 s: a lost SYN is sent again after 1 s, and one lost packet is no outage.
 */
export function probeConnectTimeout(probeIntervalMs: number, timeoutMs: number): number {
  return Math.min(timeoutMs, Math.max(1_500, Math.round(probeIntervalMs * 0.75)));
}

export class ServerSet extends EventEmitter<ServerSetEvents> {
  private readonly membership: Membership;
  private readonly probes: HealthProbe;
  private readonly discoveries: DiscoveryCache;
  private readonly ownMvps: OwnMvpPoll;
  private readonly rechecks: OutOfServiceRecheck;
  private timers: NodeJS.Timeout[] = [];
  private readonly probeIntervalMs: number;
  private readonly discoveryIntervalMs: number;
  private readonly ownMetricsIntervalMs: number;
  private readonly apiWatch: ApiWatch | undefined;
  private started = false;
  private closed = false;
  /** serverLabel of each server, for messages; made again after any change of the list. */
  private labels: Map<string, string> | undefined;
  private shown: Map<string, string> | undefined;

  constructor(servers: readonly ServerConfig[], options: ServerSetOptions = {}) {
    super();
    this.probeIntervalMs = options.probeIntervalMs ?? 2_000;
    this.discoveryIntervalMs = options.discoveryIntervalMs ?? 30_000;
    this.ownMetricsIntervalMs = options.ownMetricsIntervalMs ?? 15_000;
    this.probes = new HealthProbe({
      ...(options.historySize !== undefined ? { historySize: options.historySize } : {}),
      onChange: (name) => {
        // A watch through a server no longer ready is opened again through another.
        if (this.probes.health(name) !== 'ready') this.apiWatch?.serverDown(name);
        this.emit('health', name);
      },
      onReturn: (name) => {
        const m = this.membership.member(name);
        if (m && !m.gone) this.discoveries.reread(name, m.reader);
      },
    });
    this.discoveries = new DiscoveryCache({ onChange: (name) => this.emit('discovery', name) });
    this.apiWatch =
      options.watchApis === false
        ? undefined
        : new ApiWatch({
            through: () => this.membership.inService().find((m) => this.probes.health(m.config.name) === 'ready')?.reader,
            reread: (resource) => this.rereadAllDiscovery(resource === 'apiservices'),
            notice: (line) => this.emit('notice', line),
            periodMs: this.discoveryIntervalMs,
          });
    this.ownMvps = new OwnMvpPoll({ servers: () => this.ownMvpServers(), onRead: (name) => this.emit('health', name) });
    const timeoutMs = options.timeoutMs ?? 5_000;
    this.membership = new Membership(servers, {
      timeoutMs,
      probeConnectTimeoutMs: probeConnectTimeout(this.probeIntervalMs, timeoutMs),
      ...(options.goneRetentionMs !== undefined ? { goneRetentionMs: options.goneRetentionMs } : {}),
      onChange: (name, change) => this.onMembership(name, change),
    });
    for (const name of this.membership.names()) this.track(name);
    this.rechecks = new OutOfServiceRecheck({
      inService: () => this.membership.inService().map((m) => m.config.name),
      health: (name) => this.probes.health(name),
      discovery: (name) => this.discoveries.of(name),
      probe: (name) => this.probe(name),
      refresh: (name) => this.refreshDiscovery(name),
    });
  }

  private track(name: string): void {
    this.probes.add(name);
    this.discoveries.add(name);
    this.ownMvps.add(name);
  }

  private onMembership(name: string, change: MembershipChange): void {
    if (change === 'added') this.track(name);
    if (change === 'back') this.probes.markBack(name);
    if (change === 'gone') {
      const gone = this.membership.member(name)?.gone;
      if (gone) this.probes.markGone(name, gone.reason, gone.at);
    }
    if (change === 'removed') {
      this.probes.forget(name);
      this.discoveries.forget(name);
      this.ownMvps.forget(name);
    }
    this.labels = undefined;
    this.shown = undefined;
    this.emit('membership', name, change);
    if (change !== 'changed') this.emit('health', name);
    // Its GVRs leave the route table and the merged discovery.
    if (change === 'removed') this.emit('discovery', name);
    // A new server, one back, or one at another address: probe and read it now.
    if (this.started && (change === 'added' || change === 'back' || change === 'changed')) {
      void this.probe(name).then(() => this.refreshDiscovery(name));
    }
  }

  /** Every server in the set, gone ones included (they keep their last discovery until removed). */
  names(): string[] {
    return this.membership.names();
  }

  /** The servers the set routes to now, for a refresh of the server list (gone ones left out). */
  known(): KnownServer[] {
    return this.membership.inService().map((m) => ({
      config: m.config,
      reader: m.reader,
      ready: this.probes.health(m.config.name) === 'ready',
    }));
  }

  /**
   * Applies a refresh of the server list (servers/membership.ts): a new server joins and a gone one
   * found again comes back (both probed and read at once), one at another address is reconnected,
   * the servers named in `update.gone` are marked gone; any other server is kept as it is.
   */
  sync(update: ServerUpdate): SyncResult {
    if (this.closed) return { added: [], gone: [], back: [] };
    return this.membership.sync(update);
  }

  config(name: string): ServerConfig | undefined {
    return this.membership.member(name)?.config;
  }

  /** First probe and discovery of every server, then the periodic loops. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all(
      this.names().map(async (n) => {
        await this.probe(n);
        await this.refreshDiscovery(n);
      }),
    );
    if (this.closed) return;
    this.timers.push(setInterval(() => void this.probeAll(), this.probeIntervalMs).unref());
    this.timers.push(setInterval(() => void this.refreshAllDiscovery(), this.discoveryIntervalMs).unref());
    this.ownMvps.start(this.ownMetricsIntervalMs);
    this.apiWatch?.start();
  }

  /** The CRD and APIService watches, when on (for tests and the log). */
  apiWatchOf(): ApiWatch | undefined {
    return this.apiWatch;
  }

  /**
   * After a CRD or APIService change: every server's discovery, read conditionally (mostly 304s). An
   * APIService change also re-reads the registrations: one removed changes no server's discovery.
   */
  private rereadAllDiscovery(registrations: boolean): Promise<void> {
    return Promise.all(
      this.names().map((n) => {
        const m = this.membership.member(n);
        if (!m || m.gone || this.closed) return undefined;
        return this.discoveries.refresh(n, m.reader, { excluded: registrations ? 'always' : 'when-changed' });
      }),
    ).then(() => undefined);
  }

  /** Reads every ready real server's /metrics once (simulated servers have none). */
  readOwnMetrics(): Promise<void> {
    return this.ownMvps.readAll();
  }

  probeAll(): Promise<void> {
    return Promise.all(this.names().map((n) => this.probe(n))).then(() => undefined);
  }

  refreshAllDiscovery(): Promise<void> {
    return Promise.all(this.names().map((n) => this.refreshDiscovery(n))).then(() => undefined);
  }

  async probe(name: string): Promise<void> {
    const m = this.membership.member(name);
    if (!m || m.gone || this.closed) return;
    await this.probes.probe(name, m.reader);
  }

  /**
   * Before the port answers "nobody serves this GVR", look again at every server it believes out of
   * service or whose discovery is not current (servers/recheck.ts). The look starts no earlier than
   * `since` (the request's arrival, performance.now()); requests arriving while one runs share the next.
   */
  recheckOutOfService(since = performance.now()): Promise<void> {
    return this.rechecks.recheck(since);
  }

  refreshDiscovery(name: string): Promise<void> {
    const m = this.membership.member(name);
    if (!m || m.gone || this.closed) return Promise.resolve();
    return this.discoveries.refresh(name, m.reader);
  }

  /**
   * Resolves when the discovery of a server that just came back (or changed release) has been read
   * again; undefined when nothing is pending. Routing waits for it rather than trust the old document.
   */
  rereadPending(name: string): Promise<void> | undefined {
    return this.discoveries.rereadPending(name);
  }

  discovery(name: string): ServerDiscovery | undefined {
    return this.discoveries.document(name);
  }

  health(name: string): HealthState {
    return this.probes.health(name);
  }

  /** A forward to `name` could not connect: stop handing it requests until a probe sees it answer. */
  reportUnreachable(name: string, error: string): void {
    if (this.closed || this.membership.isGone(name)) return;
    if (this.probes.reportUnreachable(name, error)) this.emit('health', name);
  }

  lastError(name: string): string | undefined {
    return this.probes.of(name)?.lastError;
  }

  status(name: string): ServerStatus | undefined {
    return this.statusOf(name, this.displayNames());
  }

  statuses(): ServerStatus[] {
    const shown = this.displayNames();
    return this.names().flatMap((n) => this.statusOf(n, shown) ?? []);
  }

  /**
   * How a message names the server: its display name, with its identity beside it when they differ
   * (`"cp-1" (apiserver-fa6m…)`). Kept until the list changes, so the request path may ask per request.
   */
  label(name: string): string {
    if (!this.labels) {
      const shown = this.displayNames();
      this.labels = new Map([...shown].map(([id, display]) => [id, serverLabel(id, display)]));
    }
    return this.labels.get(name) ?? serverLabel(name);
  }

  /** The name a person reads for a server (its host name, told apart); kept until the list changes, for the route header. */
  shownName(name: string): string {
    return (this.shown ??= this.displayNames()).get(name) ?? name;
  }

  /** Identity → what a person reads, unique across every listed server (gone ones are listed too). */
  private displayNames(): Map<string, string> {
    return displayNames(this.names().flatMap((n) => this.membership.member(n)?.config ?? []));
  }

  private statusOf(name: string, shown: ReadonlyMap<string, string>): ServerStatus | undefined {
    const m = this.membership.member(name);
    const h = this.probes.of(name);
    if (!m || !h) return undefined;
    const { config, gone } = m;
    const cached = this.discoveries.of(name);
    const d = cached?.document;
    const error = cached?.error;
    const displayName = shown.get(name) ?? name;
    const ownMvp = this.ownMvps.ownMvp({ config, readyChecks: h.readyChecks, gitVersion: h.gitVersion }, displayName);
    const apiserverMetrics = this.ownMvps.apiserverMetrics(config);
    return {
      name,
      displayName,
      url: config.url,
      source: config.source ?? 'flag',
      health: h.health,
      failingChecks: [...h.failingChecks],
      ...(h.gitVersion ? { gitVersion: h.gitVersion } : {}),
      ...(h.latencyMs !== undefined ? { latencyMs: Math.round(h.latencyMs * 100) / 100 } : {}),
      ...(h.lastProbeAt ? { lastProbeAt: h.lastProbeAt } : {}),
      ...(h.lastError ? { lastError: h.lastError } : {}),
      ...(h.health === 'unreachable' && h.unreachable ? { unreachable: { ...h.unreachable } } : {}),
      ...(config.proxy ? { proxy: redactProxy(new URL(config.proxy)) } : {}),
      ...(gone ? { gone } : {}),
      discovery: {
        state: d ? (error ? 'stale' : 'ok') : 'none',
        ...(d ? { source: d.source, fetchedAt: d.fetchedAt, changedAt: d.changedAt } : {}),
        gvrCount: d?.gvrs.length ?? 0,
        ...(error ? { error } : {}),
      },
      ...(ownMvp ? { ownMvp } : {}),
      ...(apiserverMetrics ? { apiserverMetrics } : {}),
    };
  }

  /** Groups a server in service serves that no APIService registers (discovery/missing-registration.ts). */
  missingRegistrations(): MissingRegistration[] {
    const shown = this.displayNames();
    return missingRegistrations(
      this.membership.inService().map((m) => {
        const displayName = shown.get(m.config.name);
        const document = this.discoveries.document(m.config.name);
        return { name: m.config.name, ...(displayName ? { displayName } : {}), ...(document ? { document } : {}) };
      }),
    );
  }

  history(name: string): HealthSample[] {
    return this.probes.history(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.apiWatch?.close();
    this.probes.close();
    this.discoveries.close();
    this.ownMvps.close();
    await this.membership.close();
  }

  private ownMvpServers(): OwnMvpServer[] {
    return this.membership.inService().map((m) => {
      const h = this.probes.of(m.config.name);
      return { config: m.config, reader: m.reader, health: h?.health ?? 'unknown', readyChecks: h?.readyChecks };
    });
  }
}
