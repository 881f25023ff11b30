// How an audited request went, judged as the port judges its own (routing/decide.ts, rules R2, R5, R6)
// against the route table of the servers' discovery, and read from the code the server answered.
// kube-apiserver's peer proxy leaves no mark of its own in the audit event (no annotation; the proxying
// server's event carries the peer's answer code), so a reroute shows as a GVR the server lacks,
// answered anyway; a 503 there is the peer proxy failing (rule R7, R10).
// Rule names (R…) are those of docs/mixed-version-proxy-rules.md.
import type { AuditOutcome } from '../../contract/audit.js';
import type { RouteTable } from '../routing/route-table.js';
import type { AuditRecord } from './event.js';

/** Codes a server answers before it routes anything (authentication, authorization, priority and fairness). */
const REFUSED_BEFORE_ROUTING = new Set([401, 403, 429]);

/** The outcome, or null when it cannot be judged: no table, or the server's discovery is not in it. */
export function classifyAuditRecord(record: AuditRecord, table: RouteTable | undefined): AuditOutcome | null {
  if (!table) return null;
  const target = record.target;
  // R2: a request without an objectRef is the handling server's own.
  if (!target) return 'non-resource';
  if (!table.known(record.server)) return null;
  if (record.code !== null && REFUSED_BEFORE_ROUTING.has(record.code)) return 'rejected';
  const gvr = { group: target.group, version: target.version, resource: target.resource };
  // R5: exact group, version and resource; a 404 here is an object that does not exist.
  if (table.serves(record.server, gvr)) return 'local';
  // R6: nobody serves it, or it is a CRD / aggregated group-version (never proxied): the server's 404 is real.
  const servedElsewhere = table.serversFor(gvr).some((s) => s !== record.server);
  if (!servedElsewhere || table.excludes(target.group, target.version))
    // A success for what the table says nobody serves: the table is older than the server (a server
    // just back at a new release, a CRD just created), so the event cannot be judged yet.
    return record.code !== null && record.code < 400 ? null : 'notfound';
  if (record.code === 404) return 'false-404';
  if (record.code === 503) return 'unavailable';
  return 'rerouted';
}
