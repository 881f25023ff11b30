// One error code per upstream failure, as undici does, and the Status Peerscope answers with
// (spec R10, P5): 503 ServiceUnavailable, "Error while proxying request to destination apiserver: …".
import { failure, type Status } from '../util/status.js';

export type UpstreamErrorCode =
  | 'UPSTREAM_CONNECT_REFUSED'
  | 'UPSTREAM_CONNECT_TIMEOUT'
  | 'UPSTREAM_DNS'
  | 'UPSTREAM_TLS'
  | 'UPSTREAM_HEADERS_TIMEOUT'
  | 'UPSTREAM_RESET'
  | 'UPSTREAM_BAD_RESPONSE'
  | 'UPSTREAM_UNKNOWN_SERVER'
  | 'CLIENT_ABORTED'
  | 'UPSTREAM_FAILED';

export interface UpstreamError {
  readonly code: UpstreamErrorCode;
  readonly message: string;
}

const TLS_CODES = /^(ERR_TLS_|UNABLE_TO_|CERT_|DEPTH_ZERO|SELF_SIGNED|ERR_SSL_|HOSTNAME_MISMATCH)/;

export function classifyUpstreamError(err: unknown): UpstreamError {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  const code = e?.cause?.code ?? e?.code ?? '';
  const detail = e?.cause?.message ?? e?.message ?? String(err);
  if (code === 'ECONNREFUSED') return { code: 'UPSTREAM_CONNECT_REFUSED', message: `connection refused (${detail})` };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return { code: 'UPSTREAM_CONNECT_TIMEOUT', message: `connect timeout (${detail})` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code: 'UPSTREAM_DNS', message: `cannot resolve the host (${detail})` };
  if (TLS_CODES.test(code)) return { code: 'UPSTREAM_TLS', message: `TLS verification failed: ${code}: ${detail}` };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { code: 'UPSTREAM_HEADERS_TIMEOUT', message: 'no response headers in time' };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { code: 'UPSTREAM_RESET', message: `connection reset (${detail})` };
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || code === 'UND_ERR_INFO') return { code: 'UPSTREAM_BAD_RESPONSE', message: `malformed response (${detail})` };
  if (code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return { code: 'CLIENT_ABORTED', message: 'the client went away' };
  return { code: 'UPSTREAM_FAILED', message: code ? `${code}: ${detail}` : detail };
}

export const PROXY_ERROR_PREFIX = 'Error while proxying request to destination apiserver: ';

export function statusForUpstreamError(server: string, error: UpstreamError): Status {
  return failure(503, 'ServiceUnavailable', `${PROXY_ERROR_PREFIX}apiserver "${server}": ${error.message}`);
}
