// The impact report of a running core (the port's /.peerscope/impact, CoreClient.getImpactReport,
// snapshots) and of a snapshot read back: both give impactReport() the same input.
import type { ImpactReport } from '../../contract/impact.js';
import type { RoutingSnapshot } from '../../contract/snapshot.js';
import type { ServerStatus } from '../../contract/servers.js';
import type { RouteTable } from '../routing/route-table.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { gvrKey } from '../discovery/types.js';
import { impactReport, type ImpactInput, type ImpactTarget } from './report.js';
import { catalogTarget, catalogTargetNames, defaultTargetName } from './targets.js';

/** What the report reads of a running core (the Core has it all; this file sits below core.ts). */
export interface ImpactSource {
  readonly routes: { readonly table: Pick<RouteTable, 'rows'> };
  readonly telemetry: Pick<Telemetry, 'usage'>;
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
  return impactReport(input, catalogTarget(to ?? defaultTargetName(input.servers.map((s) => s.gitVersion))), catalogTargetNames(), now);
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

export function impactReportOfSnapshot(snapshot: RoutingSnapshot, target: ImpactTarget): ImpactReport | undefined {
  const input = impactInputOfSnapshot(snapshot);
  return input && impactReport(input, target, catalogTargetNames(), input.usage.at);
}
