// One counted audit request as the cluster source's event: what the UI shows beside the port's
// routing events. Only the record's kept fields cross (the record itself never held a body, a query
// string or user.extra).
import type { AuditOutcome } from '../../contract/audit.js';
import type { ClusterEvent, ClusterSource } from '../../contract/cluster.js';
import type { AuditRecord } from './event.js';
import type { JudgedBy } from './timeline.js';

export function clusterEventOf(
  record: AuditRecord,
  outcome: AuditOutcome | null,
  via?: ClusterSource,
  judgedBy?: JudgedBy,
): Omit<ClusterEvent, 'seq'> {
  const t = record.target;
  return {
    at: record.receivedAt,
    server: record.server,
    userAgent: record.userAgent,
    user: record.user,
    verb: record.verb,
    path: record.path,
    group: t?.group ?? '',
    version: t?.version ?? '',
    resource: t?.resource ?? '',
    subresource: t?.subresource ?? '',
    namespace: t?.namespace ?? '',
    outcome: outcome ?? 'not-judged',
    code: record.code,
    latencyMs: Math.max(0, record.stageAt - record.receivedAt),
    ...(via ? { via } : {}),
    ...(judgedBy && outcome ? { judgedBy } : {}),
    ...(record.deprecated ? { deprecated: { removedRelease: record.deprecated.removedRelease } } : {}),
  };
}
