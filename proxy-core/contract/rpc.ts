// The request/response half of a contract, built from its method table once for every transport: a
// client over any `call(method, input)` (the renderer's HTTP and IPC transports) and a dispatcher over
// any service implementing the methods (the UI server, Electron's IPC host). A method is one row
// of the table — the schema of its argument object (none: `args: undefined`) and of its result — plus
// one method of the service; nothing else names it.
import type { z } from 'zod';
import { PeerscopeError } from './errors.js';

export interface MethodRow {
  readonly args: z.ZodType | undefined;
  readonly result: z.ZodType;
}
export type MethodTable = Readonly<Record<string, MethodRow>>;

/** A row as a call: no argument, or its argument object (optional when every field of it is). */
export type CallOf<R extends MethodRow> = R['args'] extends z.ZodType
  ? Partial<z.input<R['args']>> extends z.input<R['args']>
    ? (args?: z.input<R['args']>) => Promise<z.output<R['result']>>
    : (args: z.input<R['args']>) => Promise<z.output<R['result']>>
  : () => Promise<z.output<R['result']>>;

/** Every row of a table as a call: the service a dispatcher serves and the client a transport builds. */
export type CallsOf<T extends MethodTable> = { [M in keyof T]: CallOf<T[M]> };

/** Sends one call over the wire and resolves with the raw answer (or rejects with the host's error). */
export type CallTransport<T extends MethodTable> = (method: keyof T & string, input: unknown) => Promise<unknown>;

/** A client whose every answer is checked against the method's result schema before a caller sees it. */
export function buildClient<T extends MethodTable>(table: T, call: CallTransport<T>): CallsOf<T> {
  const client: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const [method, row] of Object.entries(table)) {
    client[method] = async (input?: unknown) => {
      const answer = await call(method, row.args === undefined ? undefined : input);
      const parsed = row.result.safeParse(answer);
      if (!parsed.success)
        throw new PeerscopeError(
          'PEERSCOPE_ERR_BAD_ANSWER',
          `${method}: the answer does not match the contract: ${describeIssues(parsed.error)}`,
        );
      return parsed.data;
    };
  }
  return client as CallsOf<T>;
}

/**
 * A client answered in-process by per-method handlers (an offline view, a test fake, a bench's
 * synthetic data): each method of the table without a handler answers `fallback(method)` (typically
 * a refusal), so a new method needs no edit in such a client unless it behaves specially there.
 */
export function clientFromHandlers<T extends MethodTable>(
  table: T,
  handlers: Partial<CallsOf<T>>,
  fallback: (method: keyof T & string) => Promise<never>,
): CallsOf<T> {
  const client: Record<string, unknown> = {};
  for (const method of Object.keys(table)) client[method] = (handlers as Record<string, unknown>)[method] ?? (() => fallback(method));
  return client as CallsOf<T>;
}

export type Dispatch<T extends MethodTable> = (method: keyof T & string, rawInput: unknown) => Promise<unknown>;

/**
 * Calls the service's method with its argument object validated by the table. A method without
 * arguments accepts nothing or `{}` (what an HTTP body of no arguments is); anything else is refused.
 * Every refusal is a PeerscopeError with a stable code, before the service is asked.
 */
export function buildDispatcher<T extends MethodTable>(table: T, service: CallsOf<T>): Dispatch<T> {
  return async (method, rawInput) => {
    if (!Object.hasOwn(table, method)) throw new PeerscopeError('PEERSCOPE_ERR_NO_METHOD', `no method ${method}`);
    const row = table[method]!;
    const call = service[method] as (input?: unknown) => Promise<unknown>;
    if (row.args === undefined) {
      if (rawInput !== undefined && !isEmptyObject(rawInput))
        throw new PeerscopeError('PEERSCOPE_ERR_INVALID_ARGUMENTS', `${method} takes no arguments`);
      return call.call(service);
    }
    // No argument object at all is an empty one: a method whose fields are all optional needs none.
    const parsed = row.args.safeParse(rawInput ?? {});
    if (!parsed.success)
      throw new PeerscopeError('PEERSCOPE_ERR_INVALID_ARGUMENTS', `invalid arguments for ${method}: ${describeIssues(parsed.error)}`);
    return call.call(service, parsed.data);
  };
}

export function isMethodOf<T extends MethodTable>(table: T, name: string): name is keyof T & string {
  return Object.hasOwn(table, name);
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** "field.path: message; …" of a zod error: names each field at fault, never echoes its value. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(argument)'}: ${i.message}`).join('; ');
}
