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
// - servers/own-mvp-poll.ts: each real server's own Mixed Version Proxy and its peer-proxy counters;
// - servers/labels.ts and servers/status.ts: how a server is named for people, and its one status.
// This file wires them: the events, the periodic loops, and one status per server.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { EventEmitter } from 'node:events';
import type { HealthSample, HealthState, ServerStatus } from '../../contract/servers.js';
import type { ServerDiscovery } from '../discovery/fetch.js';
import { missingRegistrations, type MissingRegistration } from '../discovery/missing-registration.js';
import { ApiWatch } from './servers/api-watch.js';
import { DiscoveryCache } from './servers/discovery-cache.js';
import { HealthProbe } from './servers/health-probe.js';
import { Membership, type MembershipChange, type SyncResult } from './servers/membership.js';
import { OwnMvpPoll, type OwnMvpServer } from './servers/own-mvp-poll.js';
import { OutOfServiceRecheck } from './servers/recheck.js';
import { ServerLabels } from './servers/labels.js';
import { probeConnectTimeout, type ServerSetEvents, type ServerSetOptions } from './servers/set-options.js';
import { serverStatus } from './servers/status.js';
import type { KnownServer, ServerConfig, ServerUpdate } from './server-config.js';

export { DEFAULT_GONE_RETENTION_MS, type MembershipChange } from './servers/membership.js';
export { probeConnectTimeout, type ServerSetEvents, type ServerSetOptions };

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
  private readonly labels = new ServerLabels(() => this.names().flatMap((n) => this.membership.member(n)?.config ?? []));

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
    this.labels.forget();
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
    return this.statusOf(name, this.labels.displayNames());
  }

  statuses(): ServerStatus[] {
    const shown = this.labels.displayNames();
    return this.names().flatMap((n) => this.statusOf(n, shown) ?? []);
  }

  /**
   * How a message names the server: its display name, with its identity beside it when they differ
   * (`"cp-1" (apiserver-fa6m…)`). Kept until the list changes, so the request path may ask per request.
   */
  label(name: string): string {
    return this.labels.label(name);
  }

  /** The name a person reads for a server (its host name, told apart); kept until the list changes, for the route header. */
  shownName(name: string): string {
    return this.labels.shownName(name);
  }

  private statusOf(name: string, shown: ReadonlyMap<string, string>): ServerStatus | undefined {
    const member = this.membership.member(name);
    const health = this.probes.of(name);
    if (!member || !health) return undefined;
    const displayName = shown.get(name) ?? name;
    const { config } = member;
    return serverStatus({
      name,
      displayName,
      member,
      health,
      discovery: this.discoveries.of(name),
      ownMvp: this.ownMvps.ownMvp({ config, readyChecks: health.readyChecks, gitVersion: health.gitVersion }, displayName),
      apiserverMetrics: this.ownMvps.apiserverMetrics(config),
    });
  }

  /** Groups a server in service serves that no APIService registers (discovery/missing-registration.ts). */
  missingRegistrations(): MissingRegistration[] {
    const shown = this.labels.displayNames();
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
