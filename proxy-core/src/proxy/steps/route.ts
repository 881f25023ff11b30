// Routing: the handling server a load balancer would pick (P1), then the settled decision
// (routing/settle.ts: decide() plus the waits for a returning server's re-read and the rechecks
// before a 404 / 503). An `unavailable` decision is answered as a 503 Status.
import type { Decision } from '../../routing/decide.js';
import { PEER_PROXIED_HEADER } from '../../routing/decide.js';
import { settleDecision } from '../../routing/settle.js';
import { failure, type Status } from '../../util/status.js';
import { headerValue, type Exchange } from '../exchange.js';
import type { Step } from './step.js';

export const pickHandling: Step<never, 'handling'> = {
  name: 'pick-handling-server',
  fills: ['handling'],
  run(x, ctx) {
    const ready = ctx.peers.names().filter((n) => ctx.peers.health(n) === 'ready');
    const pick = ctx.picker.pick(ready);
    if (pick.server === null) {
      x.outcome = 'unavailable';
      return failure(503, 'ServiceUnavailable', pick.reason);
    }
    x.handling = pick.server;
    return undefined;
  },
};

export const settle: Step<'info' | 'handling', 'decision'> = {
  name: 'settle-decision',
  needs: ['info', 'handling'],
  fills: ['decision'],
  run(x, ctx) {
    const decision = settleDecision({
      info: x.info,
      handling: x.handling,
      routes: ctx.state,
      servers: ctx.peers,
      peerProxiedHeader: headerValue(x.req.headers[PEER_PROXIED_HEADER]),
      accept: headerValue(x.req.headers.accept),
      discoveryMode: ctx.settings.discoveryMode,
      random: ctx.random,
      since: x.started,
    });
    return decision instanceof Promise ? decision.then((d) => adopt(x, d)) : adopt(x, decision);
  },
};

function adopt(x: Exchange, decision: Decision): Status | undefined {
  x.outcome = decision.outcome;
  if (decision.outcome === 'unavailable') return failure(503, 'ServiceUnavailable', decision.message);
  x.decision = decision;
  return undefined;
}
