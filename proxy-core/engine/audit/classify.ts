// How an audited request went, judged as the port judges its own (routing/decide.ts, rules R2, R5, R6)
// against the route table of the servers' discovery, and read from the code the server answered.
// kube-apiserver's peer proxy leaves no mark of its own in the audit event (no annotation; the proxying
// server's event carries the peer's answer code), so a reroute shows as a GVR the server lacks,
// answered anyway; a 503 there is the peer proxy failing (rule R7, R10).
// Only what is known decides: a 404 for a GVR no known server serves is real only when every server's
// discovery is known; while one is not (a server being upgraded), the request is `undetermined`.
// Rule names (R…) are those of docs/mixed-version-proxy-rules.md.
import type { AuditOutcome, UndeterminedReason } from '../../contract/audit.js';
import type { RouteTable } from '../routing/route-table.js';
import type { AuditRecord } from './event.js';

/** Codes a server answers before it routes anything (authentication, authorization, priority and fairness). */
const REFUSED_BEFORE_ROUTING = new Set([401, 403, 429]);

export interface AuditJudged {
  /** null: nothing to judge by (no table). */
  readonly outcome: AuditOutcome | null;
  /** Set when the outcome is `undetermined`. */
  readonly reason?: UndeterminedReason;
}

const undetermined = (reason: UndeterminedReason): AuditJudged => ({ outcome: 'undetermined', reason });

export function judgeAuditRecord(record: AuditRecord, table: RouteTable | undefined): AuditJudged {
  if (!table) return { outcome: null };
  const target = record.target;
  // R2: a request without an objectRef is the handling server's own.
  if (!target) return { outcome: 'non-resource' };
  if (record.code !== null && REFUSED_BEFORE_ROUTING.has(record.code)) return { outcome: 'rejected' };
  if (!table.serverNames.includes(record.server)) return undetermined('server-unknown');
  if (!table.known(record.server)) return undetermined('discovery-unread');
  const gvr = { group: target.group, version: target.version, resource: target.resource };
  // R5: exact group, version and resource; a 404 here is an object that does not exist.
  if (table.serves(record.server, gvr)) return { outcome: 'local' };
  // The server lacks the GVR: its 503 is its peer proxy failing (R7, R10), whatever is known of its peers.
  if (record.code === 503) return { outcome: 'unavailable' };
  // A success for what the table says nobody serves: the table is older than the server (a server
  // just back at a new release, a CRD just created).
  const success = record.code !== null && record.code < 400;
  // R6: a CRD / aggregated group-version is never proxied: the server's 404 is real.
  if (table.excludes(target.group, target.version)) return success ? undetermined('discovery-stale') : { outcome: 'notfound' };
  if (table.serversFor(gvr).some((s) => s !== record.server)) return { outcome: record.code === 404 ? 'false-404' : 'rerouted' };
  // No known server serves it: a real 404 only when every server's discovery is known.
  if (table.serverNames.some((s) => !table.known(s))) return undetermined('discovery-unread');
  return success ? undetermined('discovery-stale') : { outcome: 'notfound' };
}

/** The outcome alone (see judgeAuditRecord). */
export function classifyAuditRecord(record: AuditRecord, table: RouteTable | undefined): AuditOutcome | null {
  return judgeAuditRecord(record, table).outcome;
}
