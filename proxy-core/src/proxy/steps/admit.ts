// The refusals every request of the port goes through, plain, upgrade or control (P4, P7): a Host
// that does not name the port, a request a browser sent from another origin, a refused method or
// path; then the identity headers a client must not send are removed.
import type { Status } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import type { Exchange } from '../exchange.js';
import { checkHost } from '../passes/host-check.js';
import { checkOrigin } from '../passes/origin-check.js';
import { checkRequestFilter } from '../passes/request-filter.js';
import { stripIdentityHeaders } from '../passes/strip-identity.js';
import type { Step } from './step.js';

export const hostCheck: Step = { name: 'host-check', run: (x, ctx) => rejected(x, checkHostOf(x, ctx)) };

export const originCheck: Step = {
  name: 'origin-check',
  run: (x, ctx) => rejected(x, checkOrigin(x.req.headers, x.req.headers.host, ctx.settings.acceptOrigins)),
};

export const requestFilter: Step = {
  name: 'request-filter',
  run: (x, ctx) => rejected(x, checkRequestFilter(x.method, x.path, x.info?.path, ctx.settings.filter)),
};

export const stripIdentity: Step = {
  name: 'strip-identity',
  run(x) {
    stripIdentityHeaders(x.req.headers);
    return undefined;
  },
};

/** The same three refusals for a request to the port's own endpoints, on its decoded path. */
export function admissionRefusal(x: Exchange, ctx: ProxyContext, decodedPath: string | undefined): Status | undefined {
  return (
    checkHostOf(x, ctx) ??
    checkOrigin(x.req.headers, x.req.headers.host, ctx.settings.acceptOrigins) ??
    checkRequestFilter(x.method, x.path, decodedPath, ctx.settings.filter)
  );
}

function checkHostOf(x: Exchange, ctx: ProxyContext): Status | undefined {
  const host = checkHost(x.req.headers.host, { port: ctx.listenerPort() }, ctx.settings.acceptHosts);
  return host.ok ? undefined : host.status;
}

function rejected(x: Exchange, status: Status | undefined): Status | undefined {
  if (status) x.outcome = 'rejected';
  return status;
}
