// The load balancer's one retry, as nginx's proxy_next_upstream: a forward whose handling server
// refused the connection never reached it, so the request may go once to another handling server.
// Never a reroute to a peer (spec R8, R10: that failure is the handling server's 503), never a
// request with a body (it may have been read), never a second time; and only when no connection was
// made (errors.ts, isConnectFailure: refused, timed out, unreachable, DNS, TLS).
import type { IncomingMessage } from 'node:http';
import { hasBody } from './request-headers.js';

/** Whether this forward may be retried elsewhere should it fail: decided before it is sent (errors are then not written). */
export function mayRetryElsewhere(
  firstAttempt: boolean,
  target: string,
  handling: string | null,
  rerouted: boolean,
  req: IncomingMessage,
): boolean {
  return firstAttempt && target === handling && !rerouted && !hasBody(req);
}
