// What a caller hands to forward() and what it gets back. A file of their own because both forward.ts
// (which takes the options) and relay.ts (which fills the result) use them, and neither imports the other.
import type { UpstreamError } from './errors.js';

/** How messages name a server (cluster/server-set.ts's ServerSet.label). */
export interface ServerLabels {
  label(name: string): string;
}

export interface ForwardOptions {
  /** Added to the outgoing request (e.g. x-kubernetes-peer-proxied: true). */
  readonly addRequestHeaders?: Record<string, string>;
  /** Added to the response when the upstream answered. */
  readonly responseHeaders?: Record<string, string>;
  /** Added to the Status Peerscope writes when the upstream could not be reached. */
  readonly errorResponseHeaders?: Record<string, string>;
  /**
   * How that Status names the server (serverLabel: host name and identity; the server set is one),
   * asked only on a failure; absent: its identity, quoted.
   */
  readonly labels?: ServerLabels;
  /** A watch or follow: the response may stay open indefinitely; its headers are flushed at once. */
  readonly watch?: boolean;
  /** The port is shutting down: end this (long-running) response cleanly, as an apiserver ends watches. */
  readonly shutdown?: AbortSignal;
  /**
   * The server was found unreachable (its link went silent, it was killed): end this long-running
   * response cleanly, as at shutdown, so the client re-lists elsewhere; before its headers, a 503.
   */
  readonly serverDown?: AbortSignal;
  /** false: on a failure before the response, return it without writing the 503 (the caller may retry). */
  readonly writeErrors?: boolean;
}

export interface ForwardResult {
  /** The status sent to the client: the upstream's, 503 for a failure before it, 0 if nothing was sent. */
  readonly status: number;
  /** Request body bytes (the declared Content-Length; a chunked body counts 0). */
  readonly bytesIn: number;
  /** Response body bytes relayed from the upstream. */
  readonly bytesOut: number;
  /**
   * The upstream's headers reached the client; an error after that means a truncated body, except
   * PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN: the port ended the body cleanly.
   */
  readonly headersSent: boolean;
  readonly error?: UpstreamError;
  /** The upstream's `Warning` header values (deprecation notices), when it sent any. */
  readonly warnings?: readonly string[];
}
