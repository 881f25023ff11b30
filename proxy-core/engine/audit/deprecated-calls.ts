// Who calls a deprecated API, and when it goes: the requests a server marked with the audit
// annotations k8s.io/deprecated and k8s.io/removed-release, per client (user agent and user) and GVR.
// Memory grows with the distinct (client, GVR) pairs, not with the requests.
import type { AuditDeprecatedCall } from '../../contract/audit.js';
import type { AuditRecord } from './event.js';

interface Row {
  readonly userAgent: string;
  readonly user: string;
  readonly gvr: { group: string; version: string; resource: string };
  removedRelease: string;
  readonly servers: Set<string>;
  count: number;
  first: number;
  last: number;
}

export class DeprecatedCalls {
  private readonly rows = new Map<string, Row>();

  add(record: AuditRecord): void {
    const t = record.target;
    if (!record.deprecated || !t) return;
    const key = `${record.userAgent}\u0000${record.user}\u0000${t.group}\u0000${t.version}\u0000${t.resource}`;
    let row = this.rows.get(key);
    if (!row) {
      row = {
        userAgent: record.userAgent,
        user: record.user,
        gvr: { group: t.group, version: t.version, resource: t.resource },
        removedRelease: '',
        servers: new Set(),
        count: 0,
        first: record.receivedAt,
        last: record.receivedAt,
      };
      this.rows.set(key, row);
    }
    // A server of a newer release may name a removal an older one did not plan yet: the named one wins.
    if (record.deprecated.removedRelease) row.removedRelease = record.deprecated.removedRelease;
    row.servers.add(record.server);
    row.count++;
    row.first = Math.min(row.first, record.receivedAt);
    row.last = Math.max(row.last, record.receivedAt);
  }

  get size(): number {
    return this.rows.size;
  }

  /** Soonest removal first (none planned last), then the most calls. */
  list(): AuditDeprecatedCall[] {
    return [...this.rows.values()]
      .sort((a, b) => compareRelease(a.removedRelease, b.removedRelease) || b.count - a.count)
      .map((r) => ({
        userAgent: r.userAgent,
        user: r.user,
        gvr: { ...r.gvr },
        removedRelease: r.removedRelease,
        servers: [...r.servers].sort(),
        count: r.count,
        first: new Date(r.first).toISOString(),
        last: new Date(r.last).toISOString(),
      }));
  }
}

/** "1.25" before "1.32" before "" (no removal planned). */
function compareRelease(a: string, b: string): number {
  if (a === b) return 0;
  if (!a) return 1;
  if (!b) return -1;
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}
