// The upgrade-impact report of the clients the apiservers' own audit logs recorded (`peerscope report
// --audit-log`): every client of the cluster, not only those that use the port, counted per user agent
// and user × GVR × verb as the port counts its own, and classified against the servers the events
// were judged by and a target release.
import type { AuditReport } from '../../contract/audit.js';
import type { ImpactReport } from '../../contract/impact.js';
import { readAuditLogs, type AuditInput, type ReadAuditOptions } from '../audit/index.js';
import { gvrKey } from '../discovery/types.js';
import { ClientUsage } from '../telemetry/client-usage.js';
import { impactReport, type ImpactInput, type ImpactTarget } from './report.js';
import { catalogTargetNames } from './targets.js';

export interface AuditImpact {
  readonly report: ImpactReport;
  /** How the logs were read: inputs, problems, what they were judged against. */
  readonly audit: AuditReport;
}

/** `target` may depend on the servers judged against (the next release above theirs). */
export async function impactOfAuditLogs(
  inputs: readonly AuditInput[],
  options: Omit<ReadAuditOptions, 'onRequest' | 'follow'>,
  target: (servers: readonly { readonly gitVersion?: string }[]) => ImpactTarget,
): Promise<AuditImpact> {
  const table = options.judgement.table;
  const usage = new ClientUsage();
  let first = Infinity;
  let last = -Infinity;
  const audit = await readAuditLogs(inputs, {
    ...options,
    onRequest: (r, outcome) => {
      // As the port counts: resource requests that were routed, not refused before routing.
      if (!r.target || outcome === 'rejected') return;
      const t = r.target;
      usage.recordAs(
        {
          at: r.receivedAt,
          userAgent: r.userAgent,
          group: t.group,
          version: t.version,
          resource: t.resource,
          verb: r.verb,
          status: r.code ?? 0,
        },
        r.user || 'anonymous',
      );
      first = Math.min(first, r.receivedAt);
      last = Math.max(last, r.receivedAt);
    },
  });
  const now = Number.isFinite(last) ? last : Date.now();
  const servers = options.judgement.description.servers.map((s) => ({
    name: s.name,
    ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
    discovered: s.gvrs !== null,
  }));
  const input: ImpactInput = {
    // The window is the logs' own time: from their first request to their last.
    usage: { ...usage.data(now), since: Number.isFinite(first) ? first : now },
    servers,
    routeTable: (table?.rows() ?? []).map((r) => ({ gvr: gvrKey(r.gvr), servers: [...r.servers] })),
  };
  return { report: { ...impactReport(input, target(servers), catalogTargetNames(), now), source: 'audit-logs' }, audit };
}
