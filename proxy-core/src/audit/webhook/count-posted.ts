// Events a webhook posted, counted as a followed log's are: each request once by its server and
// auditID when it ends (dedupe.ts), judged against the route table of the moment it arrives, into the
// same counters (/.peerscope/metrics) as the followed logs.
import type { RouteTable } from '../../routing/route-table.js';
import { classifyAuditRecord } from '../classify.js';
import { RequestDedupe } from '../dedupe.js';
import type { AuditRecord } from '../event.js';
import type { AuditCounters } from '../exposition.js';

export function countPostedEvents(counters: AuditCounters, table: () => RouteTable | undefined): (record: AuditRecord) => void {
  const dedupe = new RequestDedupe();
  return (record) => {
    if (dedupe.verdict(record) !== 'count') return;
    counters.add(record, classifyAuditRecord(record, table()));
  };
}
