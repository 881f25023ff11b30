// One request counts once. A server writes up to three events per request (RequestReceived, for a
// watch or other long request ResponseStarted, then ResponseComplete or Panic), all with the request's
// auditID. Only the last one carries the answer, so only it counts; a watch therefore counts when it
// ends, as the port's watches do. A final event seen again (a log read twice through overlapping
// rotated files, a shipper that repeats lines) is dropped when its auditID is among the recent ones.
//
// The recent ones are kept as 53-bit hashes of (server, auditID), not as strings: every counted
// request's key lives until 100,000 later ones have passed, so keys as strings survived the young
// generation by the million on a long read, and V8 (Node 24) grew its young generation to the maximum
// for them (docs/performance.md, the audit read's peak RSS). Two keys sharing a hash among 100,000
// recent ones: about one in 10^11 per request.
import type { AuditRecord } from './event.js';

/** Recent final events remembered per reader. */
export const DEFAULT_RECENT_IDS = 100_000;

export type DedupeVerdict = 'count' | 'not-final' | 'duplicate';

export class RequestDedupe {
  private readonly recent = new Set<number>();
  /** The same hashes in insertion order, so the oldest is the first to go. */
  private readonly order: Float64Array;
  private next = 0;

  constructor(private readonly capacity = DEFAULT_RECENT_IDS) {
    this.order = new Float64Array(capacity);
  }

  verdict(record: AuditRecord): DedupeVerdict {
    if (record.stage !== 'ResponseComplete' && record.stage !== 'Panic') return 'not-final';
    // The same auditID at two servers is two requests: a client may send its own Audit-ID header.
    const key = requestHash(record.server, record.auditID);
    if (this.recent.has(key)) return 'duplicate';
    if (this.recent.size >= this.capacity) this.recent.delete(this.order[this.next]!);
    this.recent.add(key);
    this.order[this.next] = key;
    this.next = (this.next + 1) % this.capacity;
    return 'count';
  }
}

/** Two 32-bit FNV-1a variants (different offsets, one also shifted) over server, a 0 and auditID, joined into 53 bits. */
export function requestHash(server: string, auditID: string): number {
  let a = 0x811c9dc5;
  let b = 0x5ad1e882;
  const total = server.length + 1 + auditID.length;
  for (let i = 0; i < total; i++) {
    const code = i < server.length ? server.charCodeAt(i) : i === server.length ? 0 : auditID.charCodeAt(i - server.length - 1);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 15);
  }
  // 21 bits of b above the 32 of a: an exact integer below 2^53.
  return (b >>> 11) * 0x1_0000_0000 + (a >>> 0);
}
