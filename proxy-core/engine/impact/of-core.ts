// The impact report of a running core (the port's /.peerscope/impact, CoreClient.getImpactReport,
// snapshots) and of a snapshot read back: both give impactReport() the same input.
import type { ImpactReport } from '../../contract/impact.js';
import type { RoutingSnapshot } from '../../contract/snapshot.js';
import type { ServerStatus } from '../../contract/servers.js';
import type { RouteTable } from '../routing/route-table.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { gvrKey } from '../discovery/types.js';
import type { ClientUsage } from '../telemetry/client-usage.js';
import { clusterUsageOfEvents } from './cluster-usage.js';
import { impactReportOfSources } from './of-sources.js';
import type { ImpactInput, ImpactTarget } from './report.js';
import { catalogTarget, catalogTargetNames, defaultTargetName } from './targets.js';

/** What the report reads of a running core (the Core has it all; this file sits below core.ts). */
export interface ImpactSource {
  readonly routes: { readonly table: Pick<RouteTable, 'rows'> };
  readonly telemetry: Pick<Telemetry, 'usage'>;
  /** The cluster source's clients (core.ts); absent or undefined when the core follows no audit log. */
  readonly clusterUsage?: Pick<ClientUsage, 'data'> | undefined;
  serverStatuses(): ServerStatus[];
}

export function impactInputOf(core: ImpactSource, now = Date.now()): ImpactInput {
  return {
    usage: core.telemetry.usage.data(now),
    servers: core.serverStatuses().map((s) => ({
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      discovered: s.discovery.state !== 'none',
    })),
    routeTable: core.routes.table.rows().map((r) => ({ gvr: gvrKey(r.gvr), servers: [...r.servers] })),
  };
}

/** Against `to` (a catalog release), or by default the next release above the current servers'. */
export function impactReportOf(core: ImpactSource, to?: string, now = Date.now()): ImpactReport {
  const input = impactInputOf(core, now);
  const running = input.servers.map((s) => ({ name: s.displayName ?? s.name, ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}) }));
  const target = catalogTarget(to ?? defaultTargetName(input.servers.map((s) => s.gitVersion)), running, to ? `to=${to}` : '--to');
  // Every source the core has, each finding naming its own (of-sources.ts).
  return impactReportOfSources(
    { port: input, ...(core.clusterUsage ? { cluster: core.clusterUsage.data(now) } : {}), statuses: core.serverStatuses() },
    target,
    catalogTargetNames(),
    now,
  );
}

/** A snapshot's own record, as impactReport() reads it; undefined for a snapshot taken before usage was recorded. */
export function impactInputOfSnapshot(snapshot: RoutingSnapshot): ImpactInput | undefined {
  if (!snapshot.usage) return undefined;
  return {
    usage: snapshot.usage,
    servers: snapshot.servers.map((s) => ({
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      discovered: s.discovery.state !== 'none',
    })),
    routeTable: snapshot.routeTable.rows,
  };
}

/**
 * As the live core's report (impactReportOf): the port's clients, and when the snapshot has a cluster
 * section the cluster's clients (its recorded usage, else its kept events) and the deprecated APIs its
 * servers' /metrics listed, each finding naming its source.
 */
export function impactReportOfSnapshot(snapshot: RoutingSnapshot, target: ImpactTarget): ImpactReport | undefined {
  const input = impactInputOfSnapshot(snapshot);
  if (!input) return undefined;
  const at = input.usage.at;
  const cluster = snapshot.cluster && (snapshot.cluster.usage ?? clusterUsageOfEvents(snapshot.cluster.events).data(at));
  return impactReportOfSources(
    { port: input, ...(cluster ? { cluster } : {}), statuses: snapshot.servers },
    target,
    catalogTargetNames(),
    at,
  );
}
