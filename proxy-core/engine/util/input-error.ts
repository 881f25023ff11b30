// Errors for bad input files (kubeconfig, catalog, discovery captures, snapshots): each names the
// file and the field (a JSON pointer) or the line and column at fault, never a stack trace.
import { parse as parseTolerant, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { ZodError } from 'zod';
import { PeerscopeError, type PeerscopeErrorCode } from '../../contract/errors.js';

export class InputError extends PeerscopeError {
  override readonly name: string = 'InputError';
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly where: { pointer?: string; line?: number; column?: number } = {},
    code: PeerscopeErrorCode = 'PEERSCOPE_ERR_INPUT',
  ) {
    super(code, `${file}${formatWhere(where)}: ${detail}`);
  }
}

/** A kubeconfig Peerscope cannot use: malformed, or naming a context, cluster or user it does not define. */
export class KubeconfigError extends InputError {
  override readonly name = 'KubeconfigError';
  constructor(file: string, detail: string, where: InputError['where'] = {}) {
    super(file, detail, where, 'PEERSCOPE_ERR_KUBECONFIG');
  }
}

function formatWhere(where: InputError['where']): string {
  if (where.line !== undefined) return `:${where.line}:${where.column ?? 1}`;
  if (where.pointer !== undefined) return ` at ${where.pointer || '/'}`;
  return '';
}

/** RFC 6901 pointer of a zod issue path. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** The first issue of a zod error as an InputError naming the field. */
export function fromZodError(file: string, error: ZodError): InputError {
  const issue = error.issues[0];
  if (!issue) return new InputError(file, 'invalid document');
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problems)` : '';
  return new InputError(file, issue.message + more, { pointer: jsonPointer(issue.path) });
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** JSON.parse that reports a syntax error with the file, line and column. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message does not always carry a position (Node 20); jsonc-parser's strict mode
    // locates the first error. It runs only on the failure path.
    const errors: ParseError[] = [];
    parseTolerant(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const offset = first?.offset ?? text.length;
    const { line, column } = lineColumn(text, offset);
    const detail = first ? describeParseError(printParseErrorCode(first.error)) : 'unexpected end of input';
    return raise(new InputError(file, `not valid JSON: ${detail}`, { line, column }));
  }
}

function describeParseError(code: string): string {
  // "ValueExpected" → "value expected"
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function raise(error: Error): never {
  throw error;
}
