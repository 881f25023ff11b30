// A rendered fuzz request: its bytes on the wire with a fresh id, and the model of what the port
// must do with it. The client sends it, the oracle judges the answer against it.
import type { RequestSpec } from './request-spec.js';

export type Expectation =
  /** A well-formed request the port must forward to exactly one upstream, unchanged but for the documented edits. */
  | 'forward'
  /** The port itself must answer with a Status of one of `codes`, and forward nothing. */
  | 'refuse'
  /** The port answers itself (merged discovery, its own endpoints); nothing is forwarded. */
  | 'own'
  /** Either is acceptable (a parser leniency, or a forward and a refusal both correct); the security checks hold. */
  | 'either';

export interface Rendered {
  readonly id: string;
  readonly spec: RequestSpec;
  readonly bytes: Buffer;
  readonly method: string;
  /** The request-target as sent (latin1). */
  readonly target: string;
  readonly head: boolean;
  readonly upgrade: boolean;
  /** Header lines as sent, in order. */
  readonly headers: readonly (readonly [string, string])[];
  /** The body an upstream must receive (de-chunked). */
  readonly body: Buffer;
  readonly expect: Expectation;
  /** For 'refuse': the acceptable status codes. */
  readonly codes: readonly number[];
  /** The connection cannot carry another request after this one (close, error, upgrade, cut). */
  readonly terminal: boolean;
  /** Why the connection ends after this request (for the fuzz's own statistics). */
  readonly terminalReason: string | undefined;
  /** The port may wait for more bytes forever (short body): the client gives up after a moment. */
  readonly mayHang: boolean;
  /** More than one response may come back (extra bytes after the body are parsed as a new request). */
  readonly mayAnswerTwice: boolean;
  /** The decoded path (Go's URL.Path), undefined when it does not decode. */
  readonly decodedPath: string | undefined;
}
