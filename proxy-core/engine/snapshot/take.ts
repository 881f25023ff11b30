// Takes a routing snapshot of a running core: servers, each server's own discovery, the route
// table, counters and recent events. Built only from public data: no credential can reach it.
import { clusterSources } from '../../contract/cluster.js';
import { SNAPSHOT_API_VERSION, SNAPSHOT_KIND, type RoutingSnapshot, type SnapshotCluster } from '../../contract/snapshot.js';
import type { ServerStatus } from '../../contract/servers.js';
import type { DiscoveryMode } from '../../contract/settings.js';
import type { ServerSet } from '../cluster/server-set.js';
import { mergedDiscoveryView } from '../discovery/merged-view.js';
import { gvrKey } from '../discovery/types.js';
import { impactReportOf } from '../impact/of-core.js';
import { formatPolicy, type HandlingPolicy } from '../proxy/policy.js';
import type { RouteState } from '../proxy/route-state.js';
import type { ClusterTraffic } from '../telemetry/cluster-traffic.js';
import type { ClientUsage } from '../telemetry/client-usage.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { PEERSCOPE_VERSION } from '../version.js';

export interface TakeOptions {
  readonly source: RoutingSnapshot['source']['kind'];
  readonly context?: string;
  readonly cluster?: string;
  /** Include every server's full /api and /apis documents (larger files). */
  readonly documents?: boolean;
  /** How many recent events to keep (default: all the core holds). */
  readonly maxEvents?: number;
  readonly now?: Date;
}

/** What a snapshot reads of a running core: the Core has it all (core.ts composes; this file sits below it). */
export interface SnapshotSource {
  readonly servers: Pick<ServerSet, 'discovery'>;
  readonly routes: Pick<RouteState, 'table' | 'merged'>;
  readonly telemetry: Pick<Telemetry, 'counterRows' | 'recent' | 'usage'>;
  /** The cluster source, when audit events are read. */
  readonly cluster?: Pick<ClusterTraffic, 'summary' | 'recent' | 'minutes' | 'gvrRates'> | undefined;
  /** The cluster source's clients, as the impact report counts them (core.ts). */
  readonly clusterUsage?: Pick<ClientUsage, 'data'> | undefined;
  serverStatuses(): ServerStatus[];
  policy(): HandlingPolicy;
  discoveryMode(): DiscoveryMode;
  faithful(): boolean;
}

export function takeSnapshot(core: SnapshotSource, options: TakeOptions): RoutingSnapshot {
  const table = core.routes.table;
  const servers = core.serverStatuses().map((s) => {
    const d = core.servers.discovery(s.name);
    return {
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      url: s.url,
      source: s.source,
      health: s.health,
      failingChecks: s.failingChecks,
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      ...(s.latencyMs !== undefined ? { latencyMs: s.latencyMs } : {}),
      ...(s.ownMvp ? { ownMvp: s.ownMvp } : {}),
      ...(s.apiserverMetrics ? { apiserverMetrics: s.apiserverMetrics } : {}),
      discovery: {
        state: s.discovery.state,
        ...(s.discovery.source ? { source: s.discovery.source } : {}),
        ...(s.discovery.changedAt ? { changedAt: s.discovery.changedAt } : {}),
        gvrs: d ? d.gvrs.map(gvrKey).sort() : [],
        ...(options.documents && d ? { documents: { api: d.api, apis: d.apis } } : {}),
      },
    };
  });
  const now = options.now ?? new Date();
  const rows = table.rows().map((r) => ({ gvr: gvrKey(r.gvr), servers: [...r.servers] }));
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: SNAPSHOT_KIND,
    takenAt: now.toISOString(),
    source: {
      kind: options.source,
      ...(options.context ? { context: options.context } : {}),
      ...(options.cluster ? { cluster: options.cluster } : {}),
      peerscopeVersion: PEERSCOPE_VERSION,
    },
    settings: { discoveryMode: core.discoveryMode(), policy: formatPolicy(core.policy()), ...(core.faithful() ? { faithful: true } : {}) },
    servers,
    mergedDiscovery: mergedDiscoveryView(core),
    routeTable: { rows, skewed: table.skewed().map(gvrKey) },
    counters: core.telemetry.counterRows().map((c) => ({
      outcome: c.outcome,
      gvr: c.resource ? gvrKey(c) : '',
      handling: c.handling,
      answeredBy: c.answeredBy,
      count: c.count,
    })),
    events: core.telemetry.recent(options.maxEvents),
    usage: core.telemetry.usage.data(now.getTime()),
    impact: impactReportOf(core, undefined, now.getTime()),
    ...(core.cluster
      ? {
          cluster: {
            ...clusterOf(core.cluster, now.getTime(), options.maxEvents),
            ...(core.clusterUsage ? { usage: core.clusterUsage.data(now.getTime()) } : {}),
          },
        }
      : {}),
  };
}

function clusterOf(cluster: NonNullable<SnapshotSource['cluster']>, now: number, maxEvents: number | undefined): SnapshotCluster {
  const summary = cluster.summary();
  const events = cluster.recent();
  const bySource = summary.bySource ?? {};
  return {
    servers: summary.servers,
    sources: clusterSources.filter((s) => bySource[s] !== undefined),
    totals: summary.totals,
    bySource,
    events: maxEvents !== undefined ? events.slice(-maxEvents) : events,
    lastSeq: summary.lastSeq,
    minutes: summary.servers.map((server) => ({ server, minutes: cluster.minutes(server) })),
    gvrRates: cluster.gvrRates(now),
    deprecatedCalls: summary.deprecatedCalls ?? [],
  };
}
