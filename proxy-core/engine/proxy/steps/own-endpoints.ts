// The port's own endpoints under /.peerscope/: metrics, the routing snapshot, the upgrade-impact
// report. They come after admission (steps/admit.ts), like any request (a refusal is recorded); what
// they serve is not routing, so an answer here records no routing event.
import { serveImpact } from '../../impact/endpoint.js';
import { failure } from '../../util/status.js';
import { writeStatus } from '../../util/write-status.js';
import { OWN_ENDPOINTS_PREFIX } from '../context.js';
import type { RequestExchange } from '../exchange.js';
import { ANSWERED, type Step } from './step.js';

export const ownEndpoints: Step<never, never, RequestExchange> = {
  name: 'own-endpoints',
  only: { pathPrefix: OWN_ENDPOINTS_PREFIX },
  run(x, ctx) {
    const path = x.path;
    x.own = true;
    const { req, res } = x;
    if (path === `${OWN_ENDPOINTS_PREFIX}metrics` && (req.method === 'GET' || req.method === 'HEAD')) {
      x.status = 200;
      // Servers named as the route header names them, their identities beside (util/exposition.ts).
      return ctx.telemetry
        .prometheus((id) => ctx.servers.shownName(id))
        .then((text) => {
          res.writeHead(200, { 'content-type': ctx.telemetry.registry.contentType, 'content-length': Buffer.byteLength(text) });
          res.end(req.method === 'HEAD' ? undefined : text);
          return ANSWERED;
        });
    }
    if (path === `${OWN_ENDPOINTS_PREFIX}snapshot` && req.method === 'GET') {
      const body = JSON.stringify(ctx.snapshot());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      x.status = 200;
    } else if (path === `${OWN_ENDPOINTS_PREFIX}impact` && req.method === 'GET') {
      const source = ctx.impact?.() ?? { serverStatuses: () => ctx.servers.statuses(), routes: ctx.state, telemetry: ctx.telemetry };
      serveImpact(source, req.url ?? '', res);
    } else {
      x.status = 404;
      const p = OWN_ENDPOINTS_PREFIX;
      writeStatus(res, failure(404, 'NotFound', `peerscope has no own endpoint ${path}; it has ${p}metrics, ${p}snapshot and ${p}impact`));
    }
    return ANSWERED;
  },
};
