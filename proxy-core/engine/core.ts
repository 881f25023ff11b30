// createCore(options): the whole engine as one object. The CLI, the browser-mode control host and
// Electron main are three hosts of it (DESIGN "One core, three hosts").
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { PeerscopeError } from '../contract/errors.js';
import { setMaxListeners } from 'node:events';
import type { ServerStatus } from '../contract/servers.js';
import { registerOwnMvp } from './cluster/own-mvp-exposition.js';
import { registerServerMetrics } from './cluster/metrics/server-metrics-exposition.js';
import { ServerSet } from './cluster/server-set.js';
import { publicInfo, type ServerConfig, type ServerSource, type ServerUpdate } from './cluster/server-config.js';
import type { DiscoveryMode } from '../contract/settings.js';
import { createHandler } from './proxy/handler.js';
import { delay, listen, type ListenAddress, type PortListener } from './proxy/listener.js';
import { compilePattern } from './proxy/patterns.js';
import { HandlingServerPicker, type HandlingPolicy } from './proxy/policy.js';
import { OpenApiIndexCache } from './proxy/openapi-index-cache.js';
import { OpenApiV2Cache } from './proxy/openapi-v2-cache.js';
import { RouteState } from './proxy/route-state.js';
import { ServerDownSignals } from './proxy/server-down.js';
import { Telemetry } from './telemetry/telemetry.js';
import { Upstreams, type UpstreamOptions } from './upstream/pool.js';
import { takeSnapshot } from './snapshot/take.js';
import { AuditCounters, clusterEventOf, DeprecatedCalls, readAuditLogs, ReleaseTimeline, type AuditInput } from './audit/index.js';
import { countPostedEvents } from './audit/webhook/count-posted.js';
import { startAuditWebhook, type AuditWebhook, type AuditWebhookOptions } from './audit/webhook/receiver.js';
import { ClusterTraffic } from './telemetry/cluster-traffic.js';
import type { AuditRead } from '../contract/cluster.js';
import type { ClientUsage } from './telemetry/client-usage.js';
import { clusterClientUsage } from './impact/cluster-usage.js';
import { recordSession, type RecordOptions } from './recording/feed.js';
import { formatPolicy } from './proxy/policy.js';

/**
 * What the local port accepts and refuses beyond its own Host names (each list as typed), one field per
 * flag of proxy/port-filters.ts.
 */
export interface PortFilters {
  /** Extra Host header values the port accepts (rule P4). */
  readonly acceptHosts?: readonly string[];
  /**
   * Origins (regular expressions, each matched against the whole Origin) a browser may send requests
   * from; default none: every request a browser marks as from another origin is refused (proxy/steps/admit.ts, checkOrigin).
   */
  readonly acceptOrigins?: readonly string[];
  /** Paths (regular expressions, matched anywhere, as kubectl proxy's --reject-paths) the port refuses. */
  readonly rejectPaths?: readonly string[];
  /** Methods (regular expressions, as kubectl proxy's --reject-methods) the port refuses. */
  readonly rejectMethods?: readonly string[];
}

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
}

export type ServerRefresh =
  | { readonly ok: true; readonly update: ServerUpdate; readonly added: string[]; readonly gone: string[]; readonly back: string[] }
  | { readonly ok: false; readonly error: string };

export const DEFAULT_SERVER_REFRESH_MS = 30_000;

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
  /** Stops the read of the audit log files (a read once, or a follow) and resolves once it has stopped; what was read still counts. */
  cancelAuditRead(): Promise<void>;
  /** The file the session is recorded into, when it is. */
  recordingFile(): string | undefined;
  /** Stops accepting, lets in-flight requests finish within graceMs, ends watches, closes pools. */
  close(graceMs?: number): Promise<void>;
}

export function createCore(options: CoreOptions): Core {
  if (options.servers.length === 0) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', 'at least one apiserver is needed');
  // A bad pattern fails here, before anything is started.
  const filters = {
    acceptOrigins: (options.acceptOrigins ?? []).map((p) => compilePattern('accept-origins', p, true)),
    filter: {
      rejectPaths: (options.rejectPaths ?? []).map((p) => compilePattern('reject-paths', p, false)),
      rejectMethods: (options.rejectMethods ?? []).map((p) => compilePattern('reject-methods', p, false)),
    },
  };
  const random = options.random ?? Math.random;
  const servers = new ServerSet(options.servers, {
    ...(options.probeIntervalMs ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.discoveryIntervalMs ? { discoveryIntervalMs: options.discoveryIntervalMs } : {}),
    ...(options.goneRetentionMs !== undefined ? { goneRetentionMs: options.goneRetentionMs } : {}),
    ...(options.ownMetricsIntervalMs !== undefined ? { ownMetricsIntervalMs: options.ownMetricsIntervalMs } : {}),
  });
  const telemetry = new Telemetry(options.maxEvents ?? 10_000, options.ownIdentity ? { ownIdentity: options.ownIdentity } : {});
  registerOwnMvp(telemetry.registry, () => serverStatuses());
  registerServerMetrics(telemetry.registry, () => servers.statuses());
  const routes = new RouteState(servers);
  const auditCounters = options.auditLogs?.length || options.auditWebhook ? new AuditCounters() : undefined;
  auditCounters?.register(telemetry.registry);
  // The cluster source: the servers whose audit logs are followed, or every server when any may post.
  const cluster = auditCounters
    ? new ClusterTraffic(
        options.auditWebhook ? options.servers.map((s) => s.name) : [...new Set((options.auditLogs ?? []).map((l) => l.server))],
        undefined,
        [...(options.auditLogs?.length ? (['audit-log'] as const) : []), ...(options.auditWebhook ? (['audit-webhook'] as const) : [])],
      )
    : undefined;
  const clusterUsage = cluster && clusterClientUsage(cluster);
  // Who calls a deprecated API, from the audit annotations of files and webhook alike.
  const deprecatedCalls = new DeprecatedCalls();
  // Which release each server ran when: the probes' timeline, to which the logs add their servers' own requests.
  const releases = new ReleaseTimeline();
  if (cluster)
    servers.on('health', (name) => {
      const gitVersion = servers.status(name)?.gitVersion;
      if (gitVersion) releases.note(name, Date.now(), gitVersion);
    });
  cluster?.setDeprecatedCalls(deprecatedCalls);
  let auditWebhook: AuditWebhook | undefined;
  const auditStop = new AbortController();
  let auditFollow: Promise<unknown> | undefined;
  const follow = options.auditFollow ?? true;
  let auditRead: AuditRead | undefined = options.auditLogs?.length
    ? {
        files: options.auditLogs.map((l) => ({ server: l.server, file: l.file })),
        follow,
        state: 'reading',
        bytesRead: 0,
        bytesTotal: null,
        lines: 0,
        requests: 0,
      }
    : undefined;
  const upstreams = new Upstreams(options.servers, options.upstream);
  // Data-path pools follow the server set: a server that joins gets its pool, a removed one's closes
  // gracefully, one at another address is reconnected. A gone server keeps its pool until removed
  // (requests already on it finish); it is never chosen for a new one.
  servers.on('membership', () => upstreams.setServers(servers.names().map((n) => servers.config(n) as ServerConfig)));
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<ServerRefresh | undefined> | undefined;
  let closed = false;
  const refreshServers = (): Promise<ServerRefresh | undefined> => {
    const source = options.serverSource;
    if (!source || closed) return Promise.resolve(undefined);
    refreshing ??= (async (): Promise<ServerRefresh> => {
      let result: ServerRefresh;
      try {
        const update = await source.refresh(servers.known());
        if (closed) return { ok: false, error: 'the core closed' };
        result = { ok: true, update, ...servers.sync(update) };
      } catch (err) {
        result = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      options.onServerRefresh?.(result);
      return result;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
  const picker = new HandlingServerPicker(options.policy ?? { kind: 'round-robin' }, random);
  const settings = {
    discoveryMode: options.discoveryMode ?? ('peer-aggregated' as DiscoveryMode),
    faithful: options.faithful ?? false,
    acceptHosts: options.acceptHosts ?? [],
    ...filters,
  };
  let listener: PortListener | undefined;
  let bound: ListenAddress | undefined;
  // Created last, once nothing above can throw: a refused file leaves nothing running.
  const recording = options.record && recordSession(options.record, { telemetry, cluster, servers, routeTable: () => routes.table });
  recording?.setting('policy', formatPolicy(picker.policy));
  recording?.setting('discovery-mode', settings.discoveryMode);

  const shutdown = new AbortController();
  // Every open watch and log follow listens for the shutdown: hundreds are normal, not a leak.
  setMaxListeners(0, shutdown.signal);
  // A server found unreachable (a probe, or a forward that could not connect) ends the watches relayed
  // to it: on a silent link nothing else would.
  const serverDown = new ServerDownSignals();
  servers.on('health', (name) => {
    if (servers.health(name) === 'unreachable') serverDown.markDown(name, servers.lastError(name) ?? 'found unreachable');
  });
  const handler = createHandler({
    shutdown: shutdown.signal,
    serverDown: (name) => serverDown.signal(name),
    servers,
    state: routes,
    openApiIndex: new OpenApiIndexCache(servers, routes),
    openApiV2: new OpenApiV2Cache(servers, routes),
    upstreams,
    telemetry,
    picker,
    settings,
    random,
    listenerPort: () => bound?.port ?? 0,
    snapshot: () =>
      takeSnapshot(core, { source: options.snapshotSource ?? 'servers', ...(options.context ? { context: options.context } : {}) }),
  });

  // Beside each server's own reroute counters, what Peerscope rerouted away from it and to it.
  function serverStatuses(): ServerStatus[] {
    const statuses = servers.statuses();
    if (!statuses.some((s) => s.ownMvp)) return statuses;
    const away = new Map<string, number>();
    const here = new Map<string, number>();
    for (const r of telemetry.counterRows()) {
      if (r.outcome !== 'rerouted') continue;
      away.set(r.handling, (away.get(r.handling) ?? 0) + r.count);
      here.set(r.answeredBy, (here.get(r.answeredBy) ?? 0) + r.count);
    }
    return statuses.map((s) =>
      s.ownMvp
        ? { ...s, ownMvp: { ...s.ownMvp, peerscope: { reroutedAway: away.get(s.name) ?? 0, reroutedHere: here.get(s.name) ?? 0 } } }
        : s,
    );
  }

  const core: Core = {
    servers,
    telemetry,
    cluster,
    clusterUsage,
    routes,
    async start() {
      if (bound) return bound;
      await servers.start();
      if (auditCounters && options.auditLogs && !auditFollow) {
        // A getter: each event is judged by the route table of the moment it is read.
        const judgement = {
          get table() {
            return routes.table;
          },
          description: { kind: 'servers' as const, servers: [] },
        };
        auditFollow = readAuditLogs(options.auditLogs, {
          judgement,
          follow,
          signal: auditStop.signal,
          todayRelease: (server) => servers.status(server)?.gitVersion,
          timeline: releases,
          // Until the files' content as it was at the start is read, a follow is a read under way too.
          onProgress: (p) => {
            if (!auditRead) return;
            // A cancelled read's last figures still arrive (what was read counts); its state stays.
            const state = auditRead.state === 'cancelled' ? 'cancelled' : p.caughtUp && follow ? 'following' : 'reading';
            auditRead = { ...auditRead, state, bytesRead: p.bytesRead, bytesTotal: p.bytesAtStart, lines: p.lines, requests: p.requests };
          },
          onRequest: (r, o, judgedBy) => {
            auditCounters.add(r, o);
            deprecatedCalls.add(r);
            cluster?.record(clusterEventOf(r, o, 'audit-log', judgedBy));
          },
        }).then((report) => {
          if (auditRead) auditRead = { ...auditRead, state: report.complete ? 'done' : 'cancelled' };
          return report;
        });
      }
      if (auditCounters && options.auditWebhook && !auditWebhook) {
        auditWebhook = await startAuditWebhook({
          ...options.auditWebhook,
          onRecord: countPostedEvents(
            auditCounters,
            () => routes.table,
            (r, o, judgedBy) => {
              deprecatedCalls.add(r);
              cluster?.record(clusterEventOf(r, o, 'audit-webhook', judgedBy));
            },
            (server) => servers.status(server)?.gitVersion,
            releases,
          ),
        });
        auditWebhook.counters.register(telemetry.registry);
      }
      const every = options.serverRefreshIntervalMs ?? DEFAULT_SERVER_REFRESH_MS;
      if (options.serverSource && every > 0 && !refreshTimer) refreshTimer = setInterval(() => void refreshServers(), every).unref();
      const host = options.listen?.host ?? '127.0.0.1';
      listener = await listen(handler, { host, port: options.listen?.port ?? 8001 });
      bound = listener.address;
      return bound;
    },
    address: () => bound,
    policy: () => picker.policy,
    setPolicy(policy) {
      picker.policy = policy;
      recording?.setting('policy', formatPolicy(policy));
    },
    discoveryMode: () => settings.discoveryMode,
    faithful: () => settings.faithful,
    setDiscoveryMode(mode) {
      settings.discoveryMode = mode;
      recording?.setting('discovery-mode', mode);
    },
    recordingFile: () => options.record?.file,
    serverStatuses,
    refreshServers,
    auditWebhookUrl: () => auditWebhook?.url,
    auditRead: () => auditRead,
    async cancelAuditRead() {
      if (auditRead && (auditRead.state === 'reading' || auditRead.state === 'following')) auditRead = { ...auditRead, state: 'cancelled' };
      auditStop.abort();
      // Its last figures come as it stops: the answer has them.
      await auditFollow;
    },
    close(graceMs = 5_000) {
      // Closed once: a host's quit and a session's close may both ask.
      closing ??= closeNow(graceMs);
      return closing;
    },
  };
  let closing: Promise<void> | undefined;
  async function closeNow(graceMs: number): Promise<void> {
    closed = true;
    clearInterval(refreshTimer);
    auditStop.abort();
    await auditFollow;
    await auditWebhook?.close();
    const l = listener;
    listener = undefined;
    // Watches and follows end now, cleanly; other in-flight requests get graceMs to finish.
    if (l) await l.close(graceMs, () => shutdown.abort());
    await refreshing?.catch(() => undefined);
    // An upstream request still open once its client is gone (an apiserver that never answers) is cut:
    // undici's close() would wait for it.
    const pools = upstreams.close();
    if ((await Promise.race([pools.then(() => true), delay(Math.min(graceMs, 1_000)).then(() => false)])) === false)
      await upstreams.destroy();
    await Promise.all([servers.close(), options.serverSource?.close()]);
    // Last: the requests that finished during the grace and the servers' last changes are in it.
    recording?.close();
  }
  return core;
}

export { publicInfo };
