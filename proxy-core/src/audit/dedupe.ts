// One request counts once. A server writes up to three events per request (RequestReceived, for a
// watch or other long request ResponseStarted, then ResponseComplete or Panic), all with the request's
// auditID. Only the last one carries the answer, so only it counts; a watch therefore counts when it
// ends, as the port's watches do. A final event seen again (a log read twice through overlapping
// rotated files, a shipper that repeats lines) is dropped when its auditID is among the recent ones.
import type { AuditRecord } from './event.js';

/** Recent final events remembered per reader; at ~100 bytes each, about 10 MB. */
export const DEFAULT_RECENT_IDS = 100_000;

export type DedupeVerdict = 'count' | 'not-final' | 'duplicate';

export class RequestDedupe {
  /** Insertion-ordered, so the oldest is the first to go. */
  private readonly recent = new Set<string>();

  constructor(private readonly capacity = DEFAULT_RECENT_IDS) {}

  verdict(record: AuditRecord): DedupeVerdict {
    if (record.stage !== 'ResponseComplete' && record.stage !== 'Panic') return 'not-final';
    // The same auditID at two servers is two requests: a client may send its own Audit-ID header.
    const key = `${record.server}\u0000${record.auditID}`;
    if (this.recent.has(key)) return 'duplicate';
    this.recent.add(key);
    if (this.recent.size > this.capacity) this.recent.delete(this.recent.values().next().value as string);
    return 'count';
  }
}
