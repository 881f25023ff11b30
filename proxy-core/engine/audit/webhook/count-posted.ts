// Events a webhook posted, counted as a followed log's are: each request once by its server and
// auditID when it ends (dedupe.ts), judged against the route table of the moment it arrives, into the
// same counters (/.peerscope/metrics) as the followed logs, and handed to `onCounted` (the cluster source).
import type { RouteTable } from '../../routing/route-table.js';
import { classifyAuditRecord } from '../classify.js';
import { RequestDedupe } from '../dedupe.js';
import type { AuditRecord } from '../event.js';
import type { AuditCounters } from '../exposition.js';
import type { AuditOutcome } from '../../../contract/audit.js';
import { ReleaseTimeline, TimelineJudge, type JudgedBy } from '../timeline.js';
import { StandIns } from '../stand-in.js';

export function countPostedEvents(
  counters: AuditCounters,
  table: () => RouteTable | undefined,
  onCounted?: (record: AuditRecord, outcome: AuditOutcome | null, judgedBy: JudgedBy) => void,
  todayRelease: (server: string) => string | undefined = () => undefined,
  releases: ReleaseTimeline = new ReleaseTimeline(),
): (record: AuditRecord) => void {
  const dedupe = new RequestDedupe();
  // A batch retried long after, or a server back from an upgrade posting what it buffered: judged by its release then.
  const timeline = new TimelineJudge(releases, todayRelease);
  // A server whose discovery was never read is judged by the release it last named, where one is known.
  const standIns = new StandIns(releases, todayRelease);
  return (record) => {
    if (dedupe.verdict(record) !== 'count') return;
    releases.noteRecord(record);
    const judged = timeline.tableFor(record, standIns.apply(table(), record.receivedAt));
    const outcome = classifyAuditRecord(record, judged.table);
    counters.add(record, outcome);
    onCounted?.(record, outcome, judged.judgedBy);
  };
}
