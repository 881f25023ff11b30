// How the UI server answers: its security headers on every response, JSON bodies, and every
// failure as { error: { code, message } } (contract/errors.ts) with the HTTP status of its code;
// reading a request body within its limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PeerscopeError, toCallError, type PeerscopeErrorCode } from '../../contract/errors.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function baseHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
}

/** The HTTP status of each failure a call can meet; every other refusal of the core is a 400. */
const STATUS_OF: Partial<Record<PeerscopeErrorCode, number>> = {
  PEERSCOPE_ERR_NO_METHOD: 404,
  PEERSCOPE_ERR_BODY_TOO_LARGE: 413,
  PEERSCOPE_ERR_REFUSED: 403,
  PEERSCOPE_ERR_INTERNAL: 500,
};

export function parseBody(body: string): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body);
  } catch {
    throw new PeerscopeError('PEERSCOPE_ERR_BODY_NOT_JSON', 'the body is not JSON');
  }
}

/** Every failure goes out as { error: { code, message } } (contract/errors.ts), its status from its code. */
export function sendFailure(res: ServerResponse, err: unknown, what: string): void {
  const error = toCallError(err, what);
  if (error.code === 'PEERSCOPE_ERR_INTERNAL') console.error(`peerscope: ${what} failed:`, err);
  // A body over its limit is not read to its end: the connection closes once the answer is written.
  if (error.code === 'PEERSCOPE_ERR_BODY_TOO_LARGE') res.setHeader('connection', 'close');
  sendJson(res, STATUS_OF[error.code as PeerscopeErrorCode] ?? 400, { error });
}

export function sendError(res: ServerResponse, status: number, code: PeerscopeErrorCode, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      // Say so at once rather than read what will be refused.
      reject(new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the body exceeds ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the body exceeds ${limit} bytes`));
        // Discard the rest rather than reset the socket, so the client gets the 413 it can show.
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
