// Admission: what every request of the port goes through, plain, upgrade or one of the port's own
// endpoints, before anything answers it (P4, P7). A Host that does not name the port, a request a
// browser sent from another origin, a refused method or path: each is a 403 Status, recorded as
// `rejected`. Then the identity headers a client must not send are removed. Each check below is a
// pure function and its step, in the order the steps run.
import type { IncomingHttpHeaders } from 'node:http';
import { failure, type Status } from '../../util/status.js';
import type { RequestFilter } from '../context.js';
import type { Exchange } from '../exchange.js';
import type { Step } from './step.js';

// --- host-check: a DNS-rebinding guard (spec P4). The Host header must name the listener itself —
// localhost, 127.0.0.1 or [::1], with or without the listener's port — or a host the operator accepted.

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export type HostCheck = { readonly ok: true } | { readonly ok: false; readonly status: Status };

export function checkHost(host: string | undefined, listener: { readonly port: number }, acceptHosts: readonly string[]): HostCheck {
  // A request without Host cannot prove which name it was sent to: refused like a foreign one.
  if (host === undefined || host === '') return refuseHost('');
  const value = host.toLowerCase();
  const { name, port } = splitHost(value);
  const portOk = port === undefined || port === String(listener.port);
  if (portOk && LOOPBACK_NAMES.has(name)) return { ok: true };
  if (acceptHosts.some((h) => h.toLowerCase() === value || (portOk && h.toLowerCase() === name))) return { ok: true };
  return refuseHost(host);
}

function refuseHost(host: string): HostCheck {
  return { ok: false, status: failure(403, 'Forbidden', `Host header "${host}" is not allowed`) };
}

function splitHost(host: string): { name: string; port: string | undefined } {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return { name: host, port: undefined };
    const rest = host.slice(end + 1);
    return { name: host.slice(0, end + 1), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 ? { name: host, port: undefined } : { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

export const hostCheck: Step = {
  name: 'host-check',
  run(x, ctx) {
    const host = checkHost(x.req.headers.host, { port: ctx.listenerPort() }, ctx.settings.acceptHosts);
    return host.ok ? undefined : rejected(x, host.status);
  },
};

// --- origin-check: browser-sent requests from other origins (issue 20). The port adds the operator's
// credentials to every request that brings none, and a web page can reach 127.0.0.1: browsers send
// "simple" requests (a form's POST, text/plain) to any origin and open WebSockets with no same-origin
// rule at all.
// Browsers mark such requests; clients that are not browsers (kubectl, client-go, curl) send neither
// mark. Refused, with a 403 Status:
// - an Origin that is neither the port's own nor matched whole by one of --accept-origins;
// - `Origin: null` always: an opaque origin (a sandboxed frame, a file: or data: page, a redirect
//   across origins) could be any page, so no pattern can vouch for it;
// - `Sec-Fetch-Site: cross-site` or `same-site` (another port of localhost is same-site), unless the
//   Origin is an accepted one; `same-origin` and `none` (typed in the address bar) pass.
// The UI server (hosts/ui-server/server.ts) applies the same rule to its own pages and API: it
// imports checkOrigin from here (control/ may import proxy/).

const HINT = 'the local port refuses requests from web pages; --accept-origins allows chosen origins';

/**
 * `host` is the request's Host header, already checked to name the port: a page served on the
 * port's own origin sends `Origin: http://<host>`.
 */
export function checkOrigin(headers: IncomingHttpHeaders, host: string | undefined, acceptOrigins: readonly RegExp[]): Status | undefined {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (origin.trim().toLowerCase() === 'null') return refuseOrigin(`Origin "null" (an opaque origin) is not allowed: ${HINT}`);
    const sameOrigin = host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
    if (!sameOrigin) {
      // An accepted origin is another site on purpose: its Sec-Fetch-Site says so and is fine.
      if (acceptOrigins.some((re) => re.test(origin))) return undefined;
      return refuseOrigin(`Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed: ${HINT}`);
    }
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined) {
    const value = site.trim().toLowerCase();
    if (value === 'cross-site' || value === 'same-site' || value.includes(',')) {
      return refuseOrigin(`a request marked Sec-Fetch-Site: ${JSON.stringify(site.slice(0, 40))} is not allowed: ${HINT}`);
    }
  }
  return undefined;
}

function refuseOrigin(message: string): Status {
  return failure(403, 'Forbidden', message);
}

export const originCheck: Step = {
  name: 'origin-check',
  run: (x, ctx) => rejected(x, checkOrigin(x.req.headers, x.req.headers.host, ctx.settings.acceptOrigins)),
};

// --- request-filter: kubectl proxy's --reject-paths and --reject-methods. A request whose method, or
// whose path, a pattern matches (anywhere, as kubectl matches) is refused before it reaches an
// apiserver. The path is matched as sent and as decoded (kubectl matches Go's decoded URL.Path), so
// percent-encoding cannot slip a refused path past a pattern. Default: no pattern, so `kubectl exec`
// and `attach` keep working through the port (kubectl proxy refuses them by default).

export function checkRequestFilter(
  method: string,
  path: string,
  decodedPath: string | undefined,
  filter: RequestFilter,
): Status | undefined {
  for (const re of filter.rejectMethods) {
    if (re.test(method)) return failure(403, 'Forbidden', `the method ${method} is refused by the port (--reject-methods ${shown(re)})`);
  }
  for (const re of filter.rejectPaths) {
    if (re.test(path) || (decodedPath !== undefined && re.test(decodedPath))) {
      return failure(
        403,
        'Forbidden',
        `the path ${JSON.stringify(path.slice(0, 200))} is refused by the port (--reject-paths ${shown(re)})`,
      );
    }
  }
  return undefined;
}

/** The pattern as the operator wrote it (RegExp.source escapes every slash). */
function shown(re: RegExp): string {
  return re.source.replace(/\\\//g, '/');
}

export const requestFilter: Step<'decoded'> = {
  name: 'request-filter',
  needs: ['decoded'],
  run: (x, ctx) => rejected(x, checkRequestFilter(x.method, x.path, x.decoded, ctx.settings.filter)),
};

// --- strip-identity: client-sent front-proxy identity headers are removed before forwarding (spec §3,
// P7): a kube-apiserver trusts X-Remote-* from an authenticating proxy, so a client must never set
// them. Impersonate-* and Authorization stay: the apiserver authenticates and authorises them itself.

export function isIdentityHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'x-remote-user' || n === 'x-remote-uid' || n === 'x-remote-group' || n.startsWith('x-remote-extra-');
}

/** Removes the identity headers in place; returns how many were removed. */
export function stripIdentityHeaders(headers: IncomingHttpHeaders): number {
  let removed = 0;
  for (const name of Object.keys(headers)) {
    if (isIdentityHeader(name)) {
      delete headers[name];
      removed++;
    }
  }
  return removed;
}

export const stripIdentity: Step = {
  name: 'strip-identity',
  run(x) {
    stripIdentityHeaders(x.req.headers);
    return undefined;
  },
};

function rejected(x: Exchange, status: Status | undefined): Status | undefined {
  if (status) x.outcome = 'rejected';
  return status;
}
