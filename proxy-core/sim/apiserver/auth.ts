// Authentication of an HTTPS simulated server, as kube-apiserver's authenticators do it: a client
// certificate that chains to the cluster CA (user = its CN, groups = its O values), or the cluster's
// bearer token. Either one is enough; without a valid one a request gets a 401 Status. /version and
// the health endpoints stay open, as kube-apiserver's default RBAC lets anyone read them.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { failure, type Status } from '../../engine/util/status.js';

const OPEN_PATHS = /^\/(version|livez|readyz|healthz)(\/.*)?$/;

/** Who a request authenticated as. */
export interface SimUser {
  readonly name: string;
  readonly groups: readonly string[];
  /** How: the bearer token, or a client certificate. */
  readonly via: 'token' | 'client-certificate';
}

/** What a simulated server accepts (HTTPS mode); plain HTTP servers authenticate nobody and need nothing. */
export interface SimAuthConfig {
  /** The bearer token accepted, if any. */
  readonly token?: string;
  /**
   * Client certificates verified against the cluster CA are accepted. The listener then asks every
   * client for a certificate but lets one without through to the token check (like kube-apiserver's
   * VerifyClientCertIfGiven), so a missing certificate is a 401 Status, not a failed handshake.
   */
  readonly clientCerts?: boolean;
}

/** The user the token authenticates as: an administrator, like a kubeadm admin.conf. */
export const TOKEN_USER: SimUser = { name: 'sim-admin', groups: ['system:masters', 'system:authenticated'], via: 'token' };

export type AuthResult = { readonly ok: true; readonly user?: SimUser } | { readonly ok: false };

/**
 * The user of a request. Open paths pass without credentials; with `auth` undefined (plain HTTP) every
 * request passes unauthenticated.
 */
export function authenticate(req: IncomingMessage, path: string, auth: SimAuthConfig | undefined): AuthResult {
  if (!auth) return { ok: true };
  const user = certificateUser(req, auth) ?? tokenUser(req, auth);
  if (user) return { ok: true, user };
  return OPEN_PATHS.test(path) ? { ok: true } : { ok: false };
}

function certificateUser(req: IncomingMessage, auth: SimAuthConfig): SimUser | undefined {
  if (!auth.clientCerts) return undefined;
  const socket = req.socket as Partial<TLSSocket>;
  // authorized: the certificate was presented and chains to the CA the listener was given.
  if (!socket.authorized || typeof socket.getPeerCertificate !== 'function') return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const cn = [subject?.CN].flat()[0];
  if (!cn) return undefined;
  const orgs = [subject?.O ?? []].flat().filter((o): o is string => typeof o === 'string');
  return { name: cn, groups: [...orgs, 'system:authenticated'], via: 'client-certificate' };
}

function tokenUser(req: IncomingMessage, auth: SimAuthConfig): SimUser | undefined {
  if (auth.token === undefined) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const offered = Buffer.from((m[1] as string).trim());
  const expected = Buffer.from(auth.token);
  return offered.length === expected.length && timingSafeEqual(offered, expected) ? TOKEN_USER : undefined;
}

/** True when the request may proceed: no token configured (plain HTTP), an open path, or the token. */
export function isAuthenticated(req: IncomingMessage, path: string, token: string | undefined): boolean {
  return authenticate(req, path, token === undefined ? undefined : { token }).ok;
}

export function unauthorized(): Status {
  return failure(401, 'Unauthorized', 'Unauthorized');
}
