// createCore(options): the whole engine as one object. The CLI, the browser-mode UI server and
// Electron main are three hosts of it (DESIGN "One core, three hosts"). Its parts, each in core/:
// the port filters, the cluster source (audit logs, webhook, problems), the server list's refresh,
// what follows the server set's events, the recording, and the local port's listener.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { PeerscopeError } from '../contract/errors.js';
import type { ServerStatus } from '../contract/servers.js';
import { registerOwnMvp } from './cluster/own-mvp-exposition.js';
import { registerServerMetrics } from './cluster/metrics/server-metrics-exposition.js';
import { ServerSet } from './cluster/server-set.js';
import { publicInfo, type ServerConfig, type ServerSource } from './cluster/server-config.js';
import type { DiscoveryMode } from '../contract/settings.js';
import { createHandler } from './proxy/handler.js';
import type { ListenAddress } from './proxy/listener.js';
import type { HandlingPolicy } from './proxy/policy.js';
import { OpenApiIndexCache } from './proxy/openapi-index-cache.js';
import { OpenApiV2Cache } from './proxy/openapi-v2-cache.js';
import { RouteState } from './proxy/route-state.js';
import { Telemetry } from './telemetry/telemetry.js';
import { Upstreams, type UpstreamOptions } from './upstream/pool.js';
import { takeSnapshot } from './snapshot/take.js';
import type { AuditInput } from './audit/index.js';
import type { AuditWebhookOptions } from './audit/webhook/receiver.js';
import type { ClusterTraffic } from './telemetry/cluster-traffic.js';
import type { AuditProblemsSummary, AuditRead } from '../contract/cluster.js';
import type { ClientUsage } from './telemetry/client-usage.js';
import type { RecordOptions } from './recording/feed.js';
import { createClusterSource } from './core/cluster-source.js';
import type { PortFilters } from './core/port-filters.js';
import { PortSettings } from './core/settings.js';
import { collectWhenQuiet } from './util/quiet-collection.js';
import { closeUpstreams, LocalPort } from './core/port.js';
import { startRecording } from './core/recording.js';
import { downSignals, poolsFollow } from './core/server-events.js';
import { createServerRefresher, DEFAULT_SERVER_REFRESH_MS, type ServerRefresh } from './core/server-refresh.js';
import { withPeerscopeReroutes } from './core/server-statuses.js';

export type { PortFilters, ServerRefresh };
export { DEFAULT_SERVER_REFRESH_MS };

export interface CoreOptions extends PortFilters {
  readonly servers: readonly ServerConfig[];
  /** Data-path timeouts (connect, response headers) and pool size; defaults in upstream/pool.ts. */
  readonly upstream?: UpstreamOptions;
  /** Default 127.0.0.1:8001; port 0 picks a free one. */
  readonly listen?: { readonly host?: string; readonly port?: number };
  readonly policy?: HandlingPolicy;
  readonly discoveryMode?: DiscoveryMode;
  /**
   * The servers' own MVP exactly: OpenAPI and legacy discovery are the handling server's own (rule P8
   * off). Default false: the port answers as one cluster (docs/mixed-version-proxy-rules.md, P8).
   */
  readonly faithful?: boolean;
  readonly maxEvents?: number;
  /** The kubeconfig user name of the credential the port adds to requests that bring none (upgrade-impact identity). */
  readonly ownIdentity?: string | (() => string | undefined);
  readonly probeIntervalMs?: number;
  readonly discoveryIntervalMs?: number;
  /** Period of the read of each real server's own peer-proxy counters from its /metrics (default 15 s). */
  readonly ownMetricsIntervalMs?: number;
  /** Source of randomness for the handling policy and reroute choice (tests inject a seeded one). */
  readonly random?: () => number;
  /** What snapshots say they were taken from. */
  readonly snapshotSource?: 'sim' | 'servers' | 'kubeconfig';
  readonly context?: string;
  /**
   * Where the servers are found again on a period (a kubeconfig's cluster): new servers join, servers
   * that left are shown gone and removed after `goneRetentionMs`. Without it the list is fixed.
   */
  readonly serverSource?: ServerSource;
  /** Period of the server-list refresh (default 30 s; 0 = only on demand through refreshServers()). */
  readonly serverRefreshIntervalMs?: number;
  /** How long a server gone from the cluster stays listed (default 10 minutes). */
  readonly goneRetentionMs?: number;
  /** Each refresh's outcome (warnings, or the error that stopped it), for a host's log. */
  readonly onServerRefresh?: (result: ServerRefresh) => void;
  /**
   * Audit logs of the servers, followed from start() to close(): what each server answered is counted
   * in /.peerscope/metrics, judged against the route table of the moment each event is read.
   */
  readonly auditLogs?: readonly AuditInput[];
  /** Default true: the audit logs are followed as they grow. False: read once, with progress (a log of the past). */
  readonly auditFollow?: boolean;
  /**
   * A receiver of the servers' audit webhooks, listening from start() to close(): the events they post
   * are counted as the followed logs' are.
   */
  readonly auditWebhook?: Omit<AuditWebhookOptions, 'onRecord'>;
  /** Record the session into a new file (engine/recording/feed.ts). */
  readonly record?: RecordOptions;
  /** A line for a terminal per audit log and problem (audit/problems.ts); absent, the problems are only counted and named. */
  readonly onAuditProblem?: (line: string) => void;
}

export type { ListenAddress };

export interface Core {
  readonly servers: ServerSet;
  readonly telemetry: Telemetry;
  /** The cluster source: what the servers answered, from their followed audit logs; absent when none is followed. */
  readonly cluster: ClusterTraffic | undefined;
  /** The cluster source's clients per GVR and verb (the upgrade-impact report's); absent with no cluster source. */
  readonly clusterUsage: ClientUsage | undefined;
  readonly routes: RouteState;
  start(): Promise<ListenAddress>;
  address(): ListenAddress | undefined;
  policy(): HandlingPolicy;
  setPolicy(policy: HandlingPolicy): void;
  discoveryMode(): DiscoveryMode;
  /** `--faithful`: the servers' own MVP exactly (rule P8 off); fixed for the core's life. */
  faithful(): boolean;
  setDiscoveryMode(mode: DiscoveryMode): void;
  serverStatuses(): ServerStatus[];
  /** Finds the servers again now (see CoreOptions.serverSource); coalesced with a refresh under way. */
  refreshServers(): Promise<ServerRefresh | undefined>;
  /** Where the audit webhook receiver listens, once started. */
  auditWebhookUrl(): string | undefined;
  /** How the read of the audit log files goes; undefined when the core reads none. */
  auditRead(): AuditRead | undefined;
  /** The audit input that could not be used, the first few named; undefined without a cluster source. */
  auditProblems(): AuditProblemsSummary | undefined;
  /** Stops the read of the audit log files (a read once, or a follow) and resolves once it has stopped; what was read still counts. */
  cancelAuditRead(): Promise<void>;
  /** The file the session is recorded into, when it is. */
  recordingFile(): string | undefined;
  /** Records a rollout step the host took (its simulated cluster's controller); nothing when not recording. */
  recordStep(subject: string, step: string): void;
  /** Stops accepting, lets in-flight requests finish within graceMs, ends watches, closes pools. */
  close(graceMs?: number): Promise<void>;
}

export function createCore(options: CoreOptions): Core {
  if (options.servers.length === 0) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', 'at least one apiserver is needed');
  const random = options.random ?? Math.random;
  // A bad pattern fails here, before anything is started.
  const settings = new PortSettings(options, random);
  const servers = serverSetOf(options);
  const telemetry = new Telemetry(options.maxEvents ?? 10_000, options.ownIdentity ? { ownIdentity: options.ownIdentity } : {});
  registerOwnMvp(telemetry.registry, () => serverStatuses());
  registerServerMetrics(telemetry.registry, () => servers.statuses());
  // P9: each group's versions in version priority in the merged documents; D2's order with --faithful.
  const routes = new RouteState(servers, options.faithful ? 'as-served' : 'priority');
  const source = createClusterSource(options, { servers, routes, telemetry });
  const upstreams = new Upstreams(options.servers, options.upstream);
  poolsFollow(servers, upstreams);
  const refresher = createServerRefresher(
    servers,
    options.serverSource,
    options.serverRefreshIntervalMs ?? DEFAULT_SERVER_REFRESH_MS,
    options.onServerRefresh,
  );
  const port = new LocalPort();
  // Created last, once nothing above can throw: a refused file leaves nothing running.
  const recording = startRecording(options.record, { telemetry, cluster: source.cluster, servers, routes }, settings);
  const serverDown = downSignals(servers);
  const handler = createHandler({
    shutdown: port.signal,
    serverDown: (name) => serverDown.signal(name),
    servers,
    state: routes,
    openApiIndex: new OpenApiIndexCache(servers, routes),
    openApiV2: new OpenApiV2Cache(servers, routes),
    upstreams,
    telemetry,
    picker: settings.picker,
    settings: settings.handling,
    random,
    listenerPort: () => port.address()?.port ?? 0,
    // The same input as the snapshot's and the app's report: the cluster source included.
    impact: () => core,
    snapshot: () =>
      takeSnapshot(core, { source: options.snapshotSource ?? 'servers', ...(options.context ? { context: options.context } : {}) }),
  });
  function serverStatuses(): ServerStatus[] {
    return withPeerscopeReroutes(servers.statuses(), telemetry);
  }

  let closing: Promise<void> | undefined;
  let stopQuietCollection: (() => void) | undefined; // memory given back when quiet (util/quiet-collection.ts)
  const core: Core = {
    servers,
    telemetry,
    cluster: source.cluster,
    clusterUsage: source.clusterUsage,
    routes,
    async start() {
      const bound = port.address();
      if (bound) return bound;
      await servers.start();
      await source.start();
      refresher.start();
      stopQuietCollection ??= collectWhenQuiet();
      return port.listen(handler, options.listen);
    },
    address: () => port.address(),
    policy: () => settings.policy(),
    setPolicy: (policy) => settings.setPolicy(policy),
    discoveryMode: () => settings.discoveryMode(),
    faithful: () => settings.faithful(),
    setDiscoveryMode: (mode) => settings.setDiscoveryMode(mode),
    recordingFile: () => options.record?.file,
    recordStep: (subject, step) => recording?.step(subject, step),
    serverStatuses,
    refreshServers: () => refresher.refresh(),
    auditWebhookUrl: () => source.webhookUrl(),
    auditRead: () => source.read(),
    auditProblems: () => source.problems(),
    cancelAuditRead: () => source.cancelRead(),
    close(graceMs = 5_000) {
      // Closed once: a host's quit and a session's close may both ask.
      closing ??= closeNow(graceMs);
      return closing;
    },
  };
  async function closeNow(graceMs: number): Promise<void> {
    stopQuietCollection?.();
    const refreshed = refresher.close();
    await source.close();
    await port.close(graceMs);
    await refreshed;
    await closeUpstreams(upstreams, graceMs);
    await Promise.all([servers.close(), options.serverSource?.close()]);
    // Last: the requests that finished during the grace and the servers' last changes are in it.
    recording?.close();
  }
  return core;
}

/** The servers and their probes, discovery reads and /metrics reads at the periods the options set. */
function serverSetOf(options: CoreOptions): ServerSet {
  return new ServerSet(options.servers, {
    ...(options.probeIntervalMs ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.discoveryIntervalMs ? { discoveryIntervalMs: options.discoveryIntervalMs } : {}),
    ...(options.goneRetentionMs !== undefined ? { goneRetentionMs: options.goneRetentionMs } : {}),
    ...(options.ownMetricsIntervalMs !== undefined ? { ownMetricsIntervalMs: options.ownMetricsIntervalMs } : {}),
  });
}

export { publicInfo };
