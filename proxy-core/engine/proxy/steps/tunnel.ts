// Acting on an upgrade's decision (exec, attach, port-forward): upstream/tunnel.ts joins the client's
// socket to the target's, with what the decision adds to the request (exchange.ts, requestHeadersOf). The merged
// discovery document cannot be upgraded (400).
import { failedAtServer } from '../../upstream/errors.js';
import { tunnel } from '../../upstream/tunnel.js';
import { failure } from '../../util/status.js';
import { writeStatusToSocket } from '../../util/write-status.js';
import { requestHeadersOf, type UpgradeExchange } from '../exchange.js';
import { routeHeaders } from '../route-header.js';
import { ANSWERED, type Step, type StepResult } from './step.js';

export const tunnelUpgrade: Step<'decision', never, UpgradeExchange> = {
  name: 'tunnel',
  needs: ['decision'],
  async run(x, ctx): Promise<StepResult> {
    const { decision: d, socket } = x;
    if (d.outcome === 'discovery-merged') {
      x.status = 400;
      writeStatusToSocket(
        socket,
        failure(400, 'BadRequest', 'discovery cannot be upgraded'),
        routeHeaders(x.handling, null, 'rejected', ctx.servers),
      );
      return ANSWERED;
    }
    const result = await tunnel(ctx.upstreams, d.target, x.req, socket, x.head, {
      addRequestHeaders: requestHeadersOf(d),
      responseHeaders: routeHeaders(x.handling, d.target, d.outcome, ctx.servers),
      errorResponseHeaders: routeHeaders(x.handling, null, 'unavailable', ctx.servers),
      // An exec, attach, port-forward or WebSocket watch has no bound but this: on a silent link it would wait for ever.
      serverDown: ctx.serverDown(d.target),
      labels: ctx.servers,
    });
    x.status = result.status;
    x.bytesIn = result.bytesIn;
    x.bytesOut = result.bytesOut;
    x.answeredBy = result.error && result.status >= 500 ? null : d.target;
    if (result.error) {
      x.error = result.error.message;
      if (failedAtServer(result.error)) ctx.telemetry.serverFailed(d.target);
      if (result.status === 503) x.outcome = 'unavailable';
    }
    return ANSWERED;
  },
};
