// Forwarding a plain request to its decision's target (upstream/forward.ts), with X-Peerscope-Route
// on the answer and what the decision adds to the request: R8's header on a reroute, P6's Accept for
// H's own discovery document. When the load balancer would retry (policy.ts, mayRetryElsewhere), a
// refused connection asks the handler for its one retry (RETRY); any other failure is a 503 Status
// naming the server and the cause (upstream/errors.ts, R10, P5).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { failedAtServer, isConnectFailure, statusForUpstreamError } from '../../upstream/errors.js';
import { forward } from '../../upstream/forward.js';
import type { ProxyContext } from '../context.js';
import { requestHeadersOf, type RequestExchange } from '../exchange.js';
import { mayRetryElsewhere } from '../policy.js';
import { routeHeaders } from '../route-header.js';
import { ANSWERED, RETRY, type Step, type StepResult, type With } from './step.js';

/** What the forward reads: the class, the handling server and the decision. */
type Forwarding = With<RequestExchange, 'info' | 'handling' | 'decision'>;

export const forwardRequest: Step<'info' | 'handling' | 'decision', never, RequestExchange> = {
  name: 'forward',
  needs: ['info', 'handling', 'decision'],
  run: forwardTo,
};

async function forwardTo(x: Forwarding, ctx: ProxyContext): Promise<StepResult> {
  const d = x.decision;
  // serve-merged answered every merged document, or made it H's own to forward: none reaches here.
  if (d.outcome === 'discovery-merged') throw new Error('a merged discovery document reached the forward step');
  const { req } = x;
  if (d.outcome === 'discovery-own' && d.accept !== undefined) req.headers.accept = d.accept;
  const target = d.target;
  const mayRetry = mayRetryElsewhere(!x.retried, target, x.handling, d.outcome === 'rerouted', req);
  const longRunning = x.info.verb === 'watch' || /(?:^|&)follow=(?:true|1)/.test(x.query);
  const result = await forward(ctx.upstreams, target, req, x.res, {
    addRequestHeaders: requestHeadersOf(d),
    responseHeaders: routeHeaders(x.handling, target, d.outcome, ctx.servers),
    errorResponseHeaders: routeHeaders(x.handling, null, 'unavailable', ctx.servers),
    labels: ctx.servers,
    watch: longRunning,
    // Only long-running requests end at shutdown; others get the grace to finish.
    shutdown: longRunning ? ctx.shutdown : undefined,
    // Others are bounded by the headers timeout; a watch has no bound but this.
    serverDown: longRunning ? ctx.serverDown(target) : undefined,
    writeErrors: !mayRetry,
  });
  x.status = result.status;
  x.bytesIn = result.bytesIn;
  x.bytesOut = result.bytesOut;
  x.warnings = result.warnings;
  x.answeredBy = result.error && !result.headersSent ? null : target;
  if (!result.error) return ANSWERED;
  x.error = result.error.message;
  // A client that went away (a kubectl watch ended with Ctrl-C) is not the apiserver's failure.
  if (failedAtServer(result.error)) ctx.telemetry.serverFailed(target);
  const refused = isConnectFailure(result.error);
  if (refused) ctx.servers.reportUnreachable(target, result.error.message);
  if (result.headersSent) return ANSWERED;
  x.outcome = 'unavailable';
  if (!mayRetry) return ANSWERED; // forward() wrote the error
  if (!refused) return statusForUpstreamError(ctx.servers.label(target), result.error);
  return RETRY;
}
