// One line of an audit log (the log backend writes one JSON Event per line) → a record, or why the
// line cannot be used. Never throws: a bad line is the caller's to count and name, and reading goes on.
import { jsonPointer } from '../util/input-error.js';
import { describeField, jsonFault } from './json-fault.js';
import { AUDIT_API_VERSION, AUDIT_KIND, auditEventSchema, auditRecordOf, type AuditRecord } from './event.js';

export type ParsedLine =
  | { readonly kind: 'record'; readonly record: AuditRecord }
  | { readonly kind: 'blank' }
  | { readonly kind: 'problem'; readonly reason: LineProblem; readonly why: string };

/** What kind of fault a line has: a short fixed phrase (a metrics label, a line of stderr per file and reason). */
export type LineProblem = 'not JSON' | 'not an audit event' | 'invalid audit event';

export function parseAuditLine(server: string, line: string): ParsedLine {
  if (line.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // Never JSON.parse's message: it quotes the text around the fault (a body, a token).
    return { kind: 'problem', reason: 'not JSON', why: jsonFault(line) };
  }
  return parseAuditValue(server, value);
}

/** One parsed JSON value (a line of a log, an item of a webhook's EventList) → a record, or why it cannot be used. */
export function parseAuditValue(server: string, value: unknown): Exclude<ParsedLine, { kind: 'blank' }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'problem', reason: 'not an audit event', why: 'not a JSON object' };
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion !== AUDIT_API_VERSION || kind !== AUDIT_KIND)
    return {
      kind: 'problem',
      reason: 'not an audit event',
      why: `not an ${AUDIT_API_VERSION} ${AUDIT_KIND} (apiVersion ${describeField(apiVersion)}, kind ${describeField(kind)})`,
    };
  const parsed = auditEventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      kind: 'problem',
      reason: 'invalid audit event',
      why: `not a valid audit event: ${issue ? `${jsonPointer(issue.path) || '/'}: ${issue.message}` : 'invalid'}`,
    };
  }
  return { kind: 'record', record: auditRecordOf(server, parsed.data) };
}
