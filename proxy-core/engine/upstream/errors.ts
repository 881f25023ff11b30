// One error code per upstream failure, as undici does, and the Status Peerscope answers with
// (rule R10, P5): 503 ServiceUnavailable, "Error while proxying request to destination apiserver: …".
// The codes are Peerscope's shared ones (contract/errors.ts); the errors stay plain { code, message }
// objects, the shape every Peerscope error has on a wire, since a failing server fails requests by the
// thousand and none of them needs a stack.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { CallError, PeerscopeErrorCode } from '../../contract/errors.js';
import { failure, PROXY_ERROR_PREFIX, type Status } from '../util/status.js';

/** The codes of upstream failures; each is described in contract/errors.ts with the others. */
export type UpstreamErrorCode = Extract<PeerscopeErrorCode, `PEERSCOPE_ERR_UPSTREAM_${string}` | 'PEERSCOPE_ERR_CLIENT_ABORTED'>;

/** The wire shape of every Peerscope error (CallError), with an upstream code. */
export interface UpstreamError extends CallError {
  readonly code: UpstreamErrorCode;
}

/** Before the response headers a failure can still become a 503; after them it can only cut the body. */
export type UpstreamPhase = 'before-response' | 'after-headers';

// Node's certificate verification codes (OpenSSL X509_V_ERR_* names) and its TLS/SSL error codes.
const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED|CERT_UNTRUSTED|CERT_REJECTED)/;

export const CLIENT_ABORTED: UpstreamError = { code: 'PEERSCOPE_ERR_CLIENT_ABORTED', message: 'the client went away' };

/** Whether a failed forward or tunnel counts against the apiserver: not when the client went away. */
export function failedAtServer(error: UpstreamError): boolean {
  return error.code !== 'PEERSCOPE_ERR_CLIENT_ABORTED';
}

interface ErrorLike {
  readonly name?: unknown;
  readonly code?: unknown;
  /** A ProxyConnectError's socket-level code (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT), when it had one. */
  readonly socketCode?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The error and its causes, outermost first: undici wraps some socket errors, Node's fetch wraps all. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let current: unknown = err;
  while (current && typeof current === 'object' && out.length < 4) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

function codeOf(e: ErrorLike): string {
  if (typeof e.socketCode === 'string') return e.socketCode;
  if (typeof e.code === 'string') return e.code;
  // undici's parser error carries no code for some llhttp failures; its name is enough.
  return e.name === 'HTTPParserError' ? 'HPE_PARSE' : '';
}

function messageOf(e: ErrorLike | undefined, fallback: unknown): string {
  return typeof e?.message === 'string' && e.message ? e.message : String(fallback);
}

function classifyOne(code: string, detail: string, phase: UpstreamPhase): UpstreamError | undefined {
  if (code === 'ECONNREFUSED') return { code: 'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED', message: `connection refused (${detail})` };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return { code: 'PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT', message: `connect timeout (${detail})` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL')
    return { code: 'PEERSCOPE_ERR_UPSTREAM_UNREACHABLE', message: `host unreachable (${detail})` };
  // The CONNECT proxy could not reach the server (upstream/proxy-connector.ts): it never got the request.
  if (code === 'PEERSCOPE_ERR_PROXY_CONNECT') return { code: 'PEERSCOPE_ERR_UPSTREAM_UNREACHABLE', message: detail };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return { code: 'PEERSCOPE_ERR_UPSTREAM_DNS', message: `cannot resolve the host (${detail})` };
  if (TLS_CODES.test(code)) return { code: 'PEERSCOPE_ERR_UPSTREAM_TLS', message: `TLS handshake failed: ${code}: ${detail}` };
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return { code: 'PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT', message: `no response headers in time (${detail})` };
  if (
    code.startsWith('HPE_') ||
    code === 'UND_ERR_INFO' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_HEADERS_OVERFLOW'
  ) {
    return {
      code: phase === 'after-headers' ? 'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED' : 'PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE',
      message: `malformed response (${code}: ${detail})`,
    };
  }
  if (
    code === 'ECONNRESET' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'EPIPE' ||
    code === 'UND_ERR_CLOSED' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return phase === 'after-headers'
      ? { code: 'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED', message: `the connection ended mid-body (${detail})` }
      : { code: 'PEERSCOPE_ERR_UPSTREAM_RESET', message: `the connection closed before a response (${detail})` };
  }
  if (code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return CLIENT_ABORTED;
  return undefined;
}

/** Maps a Node, OpenSSL or undici failure to one code and a message that names its cause. */
export function classifyUpstreamError(err: unknown, phase: UpstreamPhase = 'before-response'): UpstreamError {
  const links = chain(err);
  for (const link of links) {
    if (link.name === 'AbortError') return CLIENT_ABORTED;
    const known = classifyOne(codeOf(link), messageOf(link, err), phase);
    if (known) return known;
  }
  const first = links[0];
  const code = first ? codeOf(first) : '';
  const detail = messageOf(first, err);
  if (phase === 'after-headers') return { code: 'PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED', message: code ? `${code}: ${detail}` : detail };
  return { code: 'PEERSCOPE_ERR_UPSTREAM_FAILED', message: code ? `${code}: ${detail}` : detail };
}

/** The request never reached the server's HTTP layer, so it had no effect there. */
export function isConnectFailure(error: UpstreamError): boolean {
  return (
    error.code === 'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED' ||
    error.code === 'PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT' ||
    error.code === 'PEERSCOPE_ERR_UPSTREAM_UNREACHABLE' ||
    error.code === 'PEERSCOPE_ERR_UPSTREAM_DNS' ||
    error.code === 'PEERSCOPE_ERR_UPSTREAM_TLS'
  );
}

/**
 * The 503 Peerscope answers when it could not get a response from a server (rule P5), naming it as
 * `label` says (contract/servers.ts, serverLabel: its host name and identity).
 */
export function statusForUpstreamError(label: string, error: UpstreamError): Status {
  return failure(503, 'ServiceUnavailable', `${PROXY_ERROR_PREFIX}apiserver ${label}: ${error.message}`);
}
