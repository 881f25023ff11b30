// Counted requests summed per server, per client, per GVR, and every false 404 by who got it where.
// Memory grows with the distinct clients and GVRs seen, not with the requests.
import {
  auditOutcomes,
  undeterminedReasons,
  type AuditCounts,
  type AuditOutcome,
  type AuditReport,
  type UndeterminedReason,
} from '../../contract/audit.js';
import { DeprecatedCalls } from './deprecated-calls.js';
import type { JudgedBy } from './timeline.js';
import { gvrKey, type GVR } from '../discovery/types.js';
import type { AuditRecord } from './event.js';

class Counts {
  requests = 0;
  /** Requests with an outcome, undetermined included. */
  judged = 0;
  readonly outcomes = Object.fromEntries(auditOutcomes.map((o) => [o, 0])) as Record<AuditOutcome, number>;
  readonly codes = new Map<string, number>();

  /** Requests whose outcome was decided. */
  get decided(): number {
    return this.judged - this.outcomes.undetermined;
  }

  add(outcome: AuditOutcome | null, code: number | null): void {
    this.requests++;
    if (outcome) {
      this.judged++;
      this.outcomes[outcome]++;
    }
    const key = code === null ? 'none' : String(code);
    this.codes.set(key, (this.codes.get(key) ?? 0) + 1);
  }

  toJSON(): AuditCounts {
    const codes = [...this.codes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      requests: this.requests,
      outcomes: this.judged > 0 ? { ...this.outcomes } : null,
      unjudged: this.requests - this.decided,
      codes: Object.fromEntries(codes),
    };
  }
}

interface False404 {
  readonly userAgent: string;
  readonly user: string;
  readonly server: string;
  readonly gvr: GVR;
  readonly servedBy: readonly string[];
  readonly judgedBy: JudgedBy;
  count: number;
  first: number;
  last: number;
}

export type AuditTallyReport = Pick<
  AuditReport,
  'totals' | 'undetermined' | 'perServer' | 'perClient' | 'perGvr' | 'false404s' | 'deprecatedCalls'
>;

export class AuditTally {
  private readonly totals = new Counts();
  private readonly servers = new Map<string, Counts>();
  private readonly clients = new Map<string, { userAgent: string; user: string; counts: Counts }>();
  private readonly gvrs = new Map<string, { gvr: GVR; counts: Counts }>();
  private readonly false404s = new Map<string, False404>();
  private readonly deprecated = new DeprecatedCalls();
  private readonly reasons = new Map<UndeterminedReason, number>();

  /**
   * One counted request; `servedBy` names the servers that serve its GVR (asked for false 404s only);
   * `reason` why it is undetermined.
   */
  add(
    record: AuditRecord,
    outcome: AuditOutcome | null,
    servedBy: (gvr: GVR) => readonly string[],
    judgedBy: JudgedBy = 'today',
    reason?: UndeterminedReason,
  ): void {
    this.totals.add(outcome, record.code);
    if (outcome === 'undetermined' && reason) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    this.deprecated.add(record);
    this.rowOf(this.servers, record.server, () => new Counts()).add(outcome, record.code);
    const clientKey = `${record.userAgent}\u0000${record.user}`;
    this.rowOf(this.clients, clientKey, () => ({ userAgent: record.userAgent, user: record.user, counts: new Counts() })).counts.add(
      outcome,
      record.code,
    );
    const t = record.target;
    if (!t) return;
    const gvr = { group: t.group, version: t.version, resource: t.resource };
    const key = gvrKey(gvr);
    this.rowOf(this.gvrs, key, () => ({ gvr, counts: new Counts() })).counts.add(outcome, record.code);
    if (outcome !== 'false-404') return;
    // Judged by another release, the same client, server and GVR is another finding.
    const f = this.rowOf(this.false404s, `${clientKey}\u0000${record.server}\u0000${key}\u0000${judgedBy}`, () => ({
      userAgent: record.userAgent,
      user: record.user,
      server: record.server,
      gvr,
      servedBy: servedBy(gvr),
      judgedBy,
      count: 0,
      first: record.receivedAt,
      last: record.receivedAt,
    }));
    f.count++;
    f.first = Math.min(f.first, record.receivedAt);
    f.last = Math.max(f.last, record.receivedAt);
  }

  report(): AuditTallyReport {
    const byRequests = (a: { requests: number }, b: { requests: number }) => b.requests - a.requests;
    // "No false 404" can be said only of what was decided: with nothing decided, the list is null.
    const nothingDecided = this.totals.requests > 0 && this.totals.decided === 0;
    return {
      totals: this.totals.toJSON(),
      undetermined: Object.fromEntries(undeterminedReasons.map((r) => [r, this.reasons.get(r) ?? 0])) as Record<UndeterminedReason, number>,
      perServer: [...this.servers]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([server, counts]) => ({ server, ...counts.toJSON() })),
      perClient: [...this.clients.values()].map((c) => ({ userAgent: c.userAgent, user: c.user, ...c.counts.toJSON() })).sort(byRequests),
      perGvr: [...this.gvrs.values()].map((g) => ({ gvr: g.gvr, ...g.counts.toJSON() })).sort(byRequests),
      false404s: nothingDecided
        ? null
        : [...this.false404s.values()]
            .sort((a, b) => b.count - a.count)
            .map((f) => ({
              userAgent: f.userAgent,
              user: f.user,
              server: f.server,
              gvr: f.gvr,
              servedBy: [...f.servedBy],
              judgedBy: f.judgedBy,
              count: f.count,
              first: new Date(f.first).toISOString(),
              last: new Date(f.last).toISOString(),
            })),
      deprecatedCalls: this.deprecated.list(),
    };
  }

  private rowOf<T>(map: Map<string, T>, key: string, create: () => T): T {
    let row = map.get(key);
    if (row === undefined) {
      row = create();
      map.set(key, row);
    }
    return row;
  }
}
