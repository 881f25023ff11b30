// Bearer-token authentication of an HTTPS simulated server. /version and the health endpoints stay
// open, as kube-apiserver's default RBAC lets anyone read them.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { failure, type Status } from '../../util/status.js';

const OPEN_PATHS = /^\/(version|livez|readyz|healthz)(\/.*)?$/;

/** True when the request may proceed: no token configured (plain HTTP), an open path, or the token. */
export function isAuthenticated(req: IncomingMessage, path: string, token: string | undefined): boolean {
  if (token === undefined || OPEN_PATHS.test(path)) return true;
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const offered = Buffer.from((m[1] as string).trim());
  const expected = Buffer.from(token);
  return offered.length === expected.length && timingSafeEqual(offered, expected);
}

export function unauthorized(): Status {
  return failure(401, 'Unauthorized', 'Unauthorized');
}
