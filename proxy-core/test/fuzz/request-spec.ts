// The shape of one fuzz request *spec*: plain data that the arbitraries draw, render.ts turns into
// bytes and the oracle judges. Specs hold no ids, so fast-check can replay and shrink them.
import type { ReplyMode } from './upstream.js';

export type MethodClass = 'standard' | 'odd' | 'unknown' | 'connect';
export interface MethodSpec {
  readonly name: string;
  readonly cls: MethodClass;
}

export type TargetSpec =
  | { readonly form: 'origin'; readonly path: string; readonly query: string }
  | { readonly form: 'absolute'; readonly url: string }
  | { readonly form: 'asterisk' }
  | { readonly form: 'authority'; readonly authority: string };

export type HostSpec =
  | { readonly kind: 'ok'; readonly value: string }
  | { readonly kind: 'foreign'; readonly value: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'duplicate'; readonly values: readonly string[] };

export type BodySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly body: Uint8Array }
  | {
      readonly kind: 'chunked';
      readonly body: Uint8Array;
      readonly cuts: readonly number[];
      readonly ext: boolean;
      readonly upper: boolean;
      readonly trailers: boolean;
    }
  /** Framing that the parser refuses, or that leaves the port waiting (short body). */
  | { readonly kind: 'bad'; readonly variant: BadFraming }
  /** A transfer coding other than chunked: the port must not forward it as if it were plain. */
  | { readonly kind: 'coded'; readonly te: string; readonly body: Uint8Array };

export type BadFraming =
  | 'cl-and-te'
  | 'cl-not-a-number'
  | 'cl-negative'
  | 'cl-duplicate'
  | 'cl-list'
  | 'chunk-size-garbage'
  | 'chunk-no-crlf'
  | 'te-unknown'
  | 'short-body'
  | 'long-body';

/** What a browser adds to a request a page sends: its Origin and Sec-Fetch-Site (either may be absent). */
export interface BrowserMarks {
  readonly origin: string | undefined;
  readonly fetchSite: string | undefined;
}

export type InvalidHeader =
  'name-space' | 'name-nul' | 'name-colon' | 'value-nul' | 'value-cr' | 'value-lf' | 'value-del' | 'obs-fold' | 'name-8bit';

export interface RequestSpec {
  readonly method: MethodSpec;
  readonly target: TargetSpec;
  readonly version: string;
  readonly host: HostSpec;
  /** undefined: a client that is not a browser (kubectl, curl), which sends neither mark. */
  readonly browser: BrowserMarks | undefined;
  readonly reply: ReplyMode;
  readonly identity: readonly (readonly [string, string])[];
  /** Connection header value (undefined: none) and the hop-by-hop headers sent beside it. */
  readonly connection: string | undefined;
  readonly hop: readonly (readonly [string, string])[];
  /** Upgrade request: Connection: Upgrade and this Upgrade value. */
  readonly upgrade: string | undefined;
  readonly peerProxied: string | undefined;
  readonly authorization: boolean;
  readonly accept: string | undefined;
  readonly expect: string | undefined;
  readonly extra: readonly (readonly [string, string])[];
  /** Pads the head to this many bytes with one large header (tests the 64 KiB limit from both sides). */
  readonly padTo: number;
  readonly invalidHeader: InvalidHeader | undefined;
  readonly body: BodySpec;
}
