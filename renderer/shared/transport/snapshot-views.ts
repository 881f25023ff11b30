// The contract's views of a routing snapshot, as the live core gives them: reshaped from the snapshot's
// own records, nothing re-computed.
import type {
  HealthHistory,
  OutcomeTotals,
  Overview,
  RouteTableView,
  RoutingSnapshot,
  ServerStatus,
} from '../../../proxy-core/contract/index.js';
import { routeOutcomes } from '../../../proxy-core/contract/index.js';

/** Splits "group/version/resource" (core group empty: "/v1/pods"). */
export function splitGvrKey(key: string): { group: string; version: string; resource: string } {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
}

export function snapshotTotals(snapshot: RoutingSnapshot): OutcomeTotals {
  const totals = Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as OutcomeTotals;
  for (const c of snapshot.counters) totals[c.outcome] += c.count;
  return totals;
}

/** Each server as the overview lists it, probed when the snapshot was taken. */
function serversOf(snapshot: RoutingSnapshot): ServerStatus[] {
  const takenAt = Date.parse(snapshot.takenAt);
  return snapshot.servers.map((s) => ({
    name: s.name,
    ...(s.displayName !== undefined ? { displayName: s.displayName } : {}),
    url: s.url,
    source: s.source,
    health: s.health,
    failingChecks: s.failingChecks,
    ...(s.gitVersion !== undefined ? { gitVersion: s.gitVersion } : {}),
    ...(s.latencyMs !== undefined ? { latencyMs: s.latencyMs } : {}),
    ...(s.apiserverMetrics !== undefined ? { apiserverMetrics: s.apiserverMetrics } : {}),
    lastProbeAt: takenAt,
    discovery: {
      state: s.discovery.state,
      ...(s.discovery.source ? { source: s.discovery.source } : {}),
      ...(s.discovery.changedAt !== undefined ? { changedAt: s.discovery.changedAt } : {}),
      gvrCount: s.discovery.gvrs.length,
    },
  }));
}

export function overviewOf(snapshot: RoutingSnapshot): Overview {
  const cluster = snapshot.cluster;
  const servers = serversOf(snapshot);
  return {
    policy: snapshot.settings.policy,
    discoveryMode: snapshot.settings.discoveryMode,
    ...(snapshot.settings.faithful ? { faithful: true } : {}),
    listen: null,
    servers,
    totals: snapshotTotals(snapshot),
    lastSeq: snapshot.events.at(-1)?.seq ?? 0,
    // The cluster source as recorded: the same summary a live core gives.
    ...(cluster
      ? {
          cluster: {
            servers: [...cluster.servers],
            totals: { ...cluster.totals },
            lastSeq: cluster.lastSeq,
            bySource: { ...cluster.bySource },
            ...(cluster.deprecatedCalls.length > 0 ? { deprecatedCalls: cluster.deprecatedCalls } : {}),
          },
        }
      : {}),
  };
}

export function routeTableOf(snapshot: RoutingSnapshot): RouteTableView {
  return {
    generation: 0,
    columns: snapshot.servers.map((s) => ({
      name: s.name,
      health: s.health,
      discovery: s.discovery.state,
      ...(s.gitVersion !== undefined ? { gitVersion: s.gitVersion } : {}),
    })),
    rows: snapshot.routeTable.rows.map((r) => ({ ...splitGvrKey(r.gvr), servers: [...r.servers] })),
    skewedCount: snapshot.routeTable.skewed.length,
  };
}

export function historyOf(snapshot: RoutingSnapshot): HealthHistory {
  const takenAt = Date.parse(snapshot.takenAt);
  const clusterMinutes = new Map((snapshot.cluster?.minutes ?? []).map((m) => [m.server, m.minutes]));
  return {
    servers: snapshot.servers.map((s) => ({
      name: s.name,
      samples: [
        {
          at: takenAt,
          health: s.health,
          ...(s.latencyMs !== undefined ? { latencyMs: s.latencyMs } : {}),
          ...(s.gitVersion !== undefined ? { gitVersion: s.gitVersion } : {}),
        },
      ],
      ...(clusterMinutes.has(s.name) ? { cluster: clusterMinutes.get(s.name) } : {}),
    })),
  };
}
