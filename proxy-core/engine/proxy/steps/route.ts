// Routing a request, plain or upgrade, in the order the steps run:
// - pick-handling-server: the server a load balancer would hand the request to (P1, policy.ts);
// - settle-decision: the settled decision (routing/settle.ts: decide() plus the waits for a returning
//   server's re-read and the rechecks before a 404 / 503); `unavailable` is answered as a 503 Status.
// What the port does with the decision is the next step's: serve-merged.ts, forward.ts, tunnel.ts.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { PEER_PROXIED_HEADER, type Decision } from '../../routing/decide.js';
import { settleDecision } from '../../routing/settle.js';
import { headerValue } from '../../util/headers.js';
import { failure, type Status } from '../../util/status.js';
import type { ProxyContext } from '../context.js';
import type { Exchange } from '../exchange.js';
import type { Step } from './step.js';

/** Each server's state and why, e.g. `apiserver "a" not-ready (failing: etcd, etcd-readiness)`. */
function serverStates(ctx: ProxyContext): string {
  const states = ctx.servers.statuses().map((s) => {
    const why = s.failingChecks.length ? `failing: ${s.failingChecks.join(', ')}` : s.lastError;
    return `apiserver "${s.name}" ${s.health}${why ? ` (${why})` : ''}`;
  });
  return states.join('; ') || 'none is known';
}

export const pickHandling: Step<never, 'handling'> = {
  name: 'pick-handling-server',
  fills: ['handling'],
  run(x, ctx) {
    const ready = ctx.servers.names().filter((n) => ctx.servers.health(n) === 'ready');
    const pick = ctx.picker.pick(ready);
    if (pick.server === null) {
      x.outcome = 'unavailable';
      // With none ready, the Status names every server and what failed (etcd down fails them all).
      return failure(503, 'ServiceUnavailable', ready.length === 0 ? `${pick.reason}: ${serverStates(ctx)}` : pick.reason);
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
      servers: ctx.servers,
      peerProxiedHeader: headerValue(x.req.headers[PEER_PROXIED_HEADER]),
      accept: headerValue(x.req.headers.accept),
      discoveryMode: ctx.settings.discoveryMode,
      faithful: ctx.settings.faithful,
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
