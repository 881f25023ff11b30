// What audit events are judged against: the route table of the servers' own discovery, read live
// (the host reads it as the engine does, cluster/server-set.ts) or from a routing snapshot, and a
// description of it for the report, so a reader knows which servers and which moment it stands for.
import type { AuditJudge } from '../../contract/audit.js';
import type { RoutingSnapshot } from '../../contract/snapshot.js';
import { parseGvrKey, type GVR } from '../discovery/types.js';
import { buildRouteTable, type RouteTable } from '../routing/route-table.js';
import { displayNames } from '../cluster/display-names.js';

/** Identity → the name the screens print, for the servers a judgement stands for (cluster/display-names.ts). */
export function judgedNames(servers: AuditJudge['servers']): Map<string, string> {
  return displayNames(servers);
}

/** One server's discovery as read; `gvrs` undefined when it could not be. */
export interface JudgeServer {
  readonly name: string;
  /** The host name the screens print it by (display-names.ts). */
  readonly hostname?: string;
  readonly url?: string;
  readonly gitVersion?: string;
  readonly gvrs?: readonly GVR[];
  readonly excludedGroupVersions?: readonly string[];
  readonly error?: string;
}

export interface AuditJudgement {
  /**
   * undefined: nothing to judge by. Read for each event, so a running core can give a getter of its
   * current table and each event is judged by the discovery of the moment it is read.
   */
  readonly table: RouteTable | undefined;
  readonly description: AuditJudge;
}

export const NO_JUDGEMENT: AuditJudgement = { table: undefined, description: { kind: 'none', servers: [] } };

export function judgeByServers(kind: 'servers' | 'kubeconfig', servers: readonly JudgeServer[], at: Date, from?: string): AuditJudgement {
  return {
    table: buildRouteTable(servers.map((s) => ({ name: s.name, gvrs: s.gvrs, excludedGroupVersions: s.excludedGroupVersions ?? [] }))),
    description: {
      kind,
      ...(from ? { from } : {}),
      at: at.toISOString(),
      servers: servers.map((s) => ({
        name: s.name,
        ...(s.hostname ? { hostname: s.hostname } : {}),
        ...(s.url ? { url: s.url } : {}),
        gitVersion: s.gitVersion ?? null,
        gvrs: s.gvrs ? s.gvrs.length : null,
        ...(s.error ? { error: s.error } : {}),
      })),
    },
  };
}

/** The servers of a snapshot as it recorded them (CRD group-versions are not in a snapshot). */
export function judgeBySnapshot(snapshot: RoutingSnapshot, file: string): AuditJudgement {
  const servers = snapshot.servers.map((s) => ({
    name: s.name,
    // A snapshot keeps the name the screens printed: it stands for the host name.
    ...(s.displayName && s.displayName !== s.name ? { hostname: s.displayName } : {}),
    url: s.url,
    ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
    ...(s.discovery.state === 'none' ? { error: 'its discovery was never read' } : { gvrs: s.discovery.gvrs.map(parseGvrKey) }),
  }));
  const judged = judgeByServers('servers', servers, new Date(snapshot.takenAt));
  return { table: judged.table, description: { ...judged.description, kind: 'snapshot', from: file, at: snapshot.takenAt } };
}
