// Browser-sent requests from other origins (issue 20). The port adds the operator's credentials to
// every request that brings none, and a web page can reach 127.0.0.1: browsers send "simple" requests
// (a form's POST, text/plain) to any origin and open WebSockets with no same-origin rule at all.
// Browsers mark such requests; clients that are not browsers (kubectl, client-go, curl) send neither
// mark. Refused, with a 403 Status:
// - an Origin that is neither the port's own nor matched whole by one of --accept-origins;
// - `Origin: null` always: an opaque origin (a sandboxed frame, a file: or data: page, a redirect
//   across origins) could be any page, so no pattern can vouch for it;
// - `Sec-Fetch-Site: cross-site` or `same-site` (another port of localhost is same-site), unless the
//   Origin is an accepted one; `same-origin` and `none` (typed in the address bar) pass.
// One rule for the local port (proxy/steps/admit.ts) and the UI's control server (control/server.ts):
// it lives here, below both layers, so each imports it.
import type { IncomingHttpHeaders } from 'node:http';
import { failure, type Status } from './status.js';

const HINT = 'the local port refuses requests from web pages; --accept-origins allows chosen origins';

/**
 * `host` is the request's Host header, already checked to name the port: a page served on the
 * port's own origin sends `Origin: http://<host>`.
 */
export function checkOrigin(headers: IncomingHttpHeaders, host: string | undefined, acceptOrigins: readonly RegExp[]): Status | undefined {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (origin.trim().toLowerCase() === 'null') return refuse(`Origin "null" (an opaque origin) is not allowed: ${HINT}`);
    const sameOrigin = host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
    if (!sameOrigin) {
      // An accepted origin is another site on purpose: its Sec-Fetch-Site says so and is fine.
      if (acceptOrigins.some((re) => re.test(origin))) return undefined;
      return refuse(`Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed: ${HINT}`);
    }
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined) {
    const value = site.trim().toLowerCase();
    if (value === 'cross-site' || value === 'same-site' || value.includes(',')) {
      return refuse(`a request marked Sec-Fetch-Site: ${JSON.stringify(site.slice(0, 40))} is not allowed: ${HINT}`);
    }
  }
  return undefined;
}

function refuse(message: string): Status {
  return failure(403, 'Forbidden', message);
}
