// Events a webhook posted, counted as a followed log's are: each request once by its server and
// auditID when it ends (dedupe.ts), judged against the route table of the moment it arrives, into the
// same counters (/.peerscope/metrics) as the followed logs, and handed to `onCounted` (the cluster source).
import type { RouteTable } from '../../routing/route-table.js';
import { classifyAuditRecord } from '../classify.js';
import { RequestDedupe } from '../dedupe.js';
import type { AuditRecord } from '../event.js';
import type { AuditCounters } from '../exposition.js';
import type { AuditOutcome } from '../../../contract/audit.js';

export function countPostedEvents(
  counters: AuditCounters,
  table: () => RouteTable | undefined,
  onCounted?: (record: AuditRecord, outcome: AuditOutcome | null) => void,
): (record: AuditRecord) => void {
  const dedupe = new RequestDedupe();
  return (record) => {
    if (dedupe.verdict(record) !== 'count') return;
    const outcome = classifyAuditRecord(record, table());
    counters.add(record, outcome);
    onCounted?.(record, outcome);
  };
}
