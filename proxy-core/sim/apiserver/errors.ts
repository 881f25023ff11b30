// Writing responses the way kube-apiserver does: JSON bodies, and every failure as a Status.
import type { ServerResponse } from 'node:http';
import { PeerscopeError } from '../../contract/errors.js';
import { failure, notFound, statusBody, type Status, type StatusDetails } from '../../engine/util/status.js';
import type { GroupResource, StoreError } from '../store/store.js';

/** A failure a handler throws; the router turns it into the Status response. */
export class ApiError extends PeerscopeError {
  override readonly name = 'ApiError';
  constructor(readonly status: Status) {
    super('PEERSCOPE_ERR_SIM_API', status.message ?? '');
  }
}

export function apiError(code: number, reason: Status['reason'] & string, message: string, details?: StatusDetails): ApiError {
  return new ApiError(failure(code, reason, message, details));
}

export function notFoundError(): ApiError {
  return new ApiError(notFound());
}

export function methodNotAllowed(): ApiError {
  return apiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function badRequest(message: string): ApiError {
  return apiError(400, 'BadRequest', message);
}

/** Maps a store failure to the Status kube-apiserver answers, details naming the resource. */
export function fromStoreError(err: StoreError, gr: GroupResource, name: string): ApiError {
  // As kube-apiserver: the core group is left out of the details, not given as "".
  const details: StatusDetails = { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource };
  switch (err.reason) {
    case 'NotFound':
      return apiError(404, 'NotFound', err.message, details);
    case 'AlreadyExists':
      return apiError(409, 'AlreadyExists', err.message, details);
    case 'Conflict':
      return apiError(409, 'Conflict', err.message, details);
    case 'Expired':
      return apiError(410, 'Expired', err.message);
  }
}

export function sendStatus(res: ServerResponse, status: Status): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = statusBody(status);
  res.writeHead(status.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
  extraHeaders: Record<string, string> = {},
): void {
  const text = JSON.stringify(body) + '\n';
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), ...extraHeaders });
  res.end(text);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function internalError(err: unknown): Status {
  return failure(500, 'InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`, {
    causes: [{ message: err instanceof Error ? err.message : String(err) }],
  });
}
