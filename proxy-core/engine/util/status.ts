// Kubernetes `Status` objects (meta/v1), the only error body Peerscope and the simulated apiservers
// produce. Reasons and codes follow k8s.io/apimachinery/pkg/api/errors.
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Expired'
  | '';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string; continue?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return s;
}

/** R10: kube-apiserver's log line for a failed proxy, which Peerscope uses as its 503 Status message (P5). */
export const PROXY_ERROR_PREFIX = 'Error while proxying request to destination apiserver: ';

export const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';
/** The not-found handler's answer for a path no handler serves (notfoundhandler/not_found_handler.go). */
export function notFound(): Status {
  return failure(404, 'NotFound', NOT_FOUND_MESSAGE, {});
}

/** Serialized body, for writing with Content-Type application/json. */
export function statusBody(status: Status): string {
  return JSON.stringify(status) + '\n';
}

/** A client-sent value quoted in a Status message, cut at 200 characters. */
export function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
