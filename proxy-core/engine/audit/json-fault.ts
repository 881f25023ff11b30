// What is wrong with an input that is not what it should be, said without a piece of it: audit events
// carry request bodies, query strings and user.extra (tokens, passwords), so a message names where the
// fault is (the caller adds file and line; this gives the byte offset) and what kind it is, never the
// text around it. Node's own JSON.parse message quotes that text, so it is never passed on.
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** "not JSON: value expected at byte 41", for a text JSON.parse refused. */
export function jsonFault(text: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return 'not JSON';
  const kind = printParseErrorCode(first.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return `not JSON: ${kind} at byte ${Buffer.byteLength(text.slice(0, first.offset))}`;
}

/** Values a field may hold that are safe to name (the audit API's own versions and kinds). */
const NAMEABLE = new Set(['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1', 'Event', 'EventList']);

/** A field's value as a message may name it: one of the audit API's own names, else only its type. */
export function describeField(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return NAMEABLE.has(value) ? `"${value}"` : `another string (${value.length} characters)`;
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
