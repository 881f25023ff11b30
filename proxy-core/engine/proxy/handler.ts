// The local port's request handler: the request path as ordered lists of named steps (httpxy's
// passes; each in proxy/steps/), and the glue that runs them, takes the load balancer's one retry
// and writes what they leave. Plain requests and upgrades share admission (once, before anything
// answers) and routing. stepList checks, when it is compiled, that each step's needs are filled by a
// step before it (steps/step.ts).
// Every refusal is decided before anything reaches an apiserver; every response carries
// X-Peerscope-Route; every error Peerscope itself produces is a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from '../util/status.js';
import { failure } from '../util/status.js';
import { writeStatus, writeStatusToSocket } from '../util/write-status.js';
import type { ProxyContext } from './context.js';
import { newExchange, recordExchange, type Exchange, type RequestExchange, type UpgradeExchange } from './exchange.js';
import { ROUTE_HEADER, routeHeader, type ShownNames } from './route-header.js';
import { hostCheck, originCheck, requestFilter, stripIdentity } from './steps/admit.js';
import { forwardRequest } from './steps/forward.js';
import { ownEndpoints } from './steps/own-endpoints.js';
import { absoluteTarget, classify, decode, requestHead, upgradeTarget } from './steps/read.js';
import { pickHandling, settle } from './steps/route.js';
import { serveMerged } from './steps/serve-merged.js';
import { ANSWERED, RETRY, stepList, type ListedStep, type StepGuard, type StepResult } from './steps/step.js';
import { tunnelUpgrade } from './steps/tunnel.js';

export { OWN_ENDPOINTS_PREFIX, type ProxyContext } from './context.js';

/**
 * Admission: every request, plain, upgrade or to the port's own endpoints, once. Classified first, so
 * that a refused request is recorded with what it asked for.
 */
const ADMISSION = [classify, hostCheck, originCheck, requestFilter, stripIdentity] as const;

/** Routing: the handling server a load balancer would pick, then the settled decision. */
const ROUTING = [pickHandling, settle] as const;

/**
 * A plain request: read and decode it, admit it, serve the port's own endpoints, route, then serve a
 * merged document or forward.
 */
export const REQUEST_STEPS: readonly ListedStep<RequestExchange>[] = stepList<RequestExchange>()(
  absoluteTarget,
  requestHead,
  decode,
  ...ADMISSION,
  ownEndpoints,
  ...ROUTING,
  serveMerged,
  forwardRequest,
);

/** Where the one retry starts again: routing, on another handling server. */
const RETRY_FROM = REQUEST_STEPS.findIndex((s) => s.name === pickHandling.name);

/** An upgrade (exec, attach, port-forward): the same admission and routing, then a tunnel. */
export const UPGRADE_STEPS: readonly ListedStep<UpgradeExchange>[] = stepList<UpgradeExchange>()(
  upgradeTarget,
  requestHead,
  ...ADMISSION,
  ...ROUTING,
  tunnelUpgrade,
);

export interface Handler {
  onRequest(req: IncomingMessage, res: ServerResponse): Promise<void>;
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
}

export function createHandler(ctx: ProxyContext): Handler {
  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x = newExchange(req, res, undefined, undefined);
    try {
      let result = runSteps(REQUEST_STEPS, x, ctx);
      if (result instanceof Promise) result = await result;
      // The load balancer's one retry (policy.ts, mayRetryElsewhere): the forward found its server
      // refusing connections, so routing and forwarding run once more, on another handling server.
      // The forward asks for it only while x.retried is false, so this loop runs at most once.
      while (result === RETRY) {
        x.retried = true;
        result = await runSteps(REQUEST_STEPS, x, ctx, RETRY_FROM);
      }
      if (result !== undefined && result !== ANSWERED) answerStatus(x, res, result, ctx.servers);
    } catch (err) {
      x.error = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) answerStatus(x, res, failure(500, 'InternalError', `peerscope: ${x.error}`), ctx.servers);
      else res.destroy();
    } finally {
      if (!x.own) recordExchange(ctx.telemetry, x);
    }
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const x = newExchange(req, undefined, socket, head);
    try {
      let result = runSteps(UPGRADE_STEPS, x, ctx);
      if (result instanceof Promise) result = await result;
      // An upgrade is never retried: only the forward asks for it.
      if (result !== undefined && result !== ANSWERED && result !== RETRY) {
        x.status = result.code;
        x.error ??= result.message;
        writeStatusToSocket(socket, result, { [ROUTE_HEADER]: routeHeader(x.handling, null, x.outcome, ctx.servers) });
      }
    } catch (err) {
      x.error = err instanceof Error ? err.message : String(err);
      socket.destroy();
    } finally {
      recordExchange(ctx.telemetry, x);
    }
  }

  return { onRequest, onUpgrade };
}

/** Runs `steps` in order from `from` until one refuses, answers or asks for the retry; synchronous until a step waits. */
export function runSteps<X extends Exchange>(
  steps: readonly ListedStep<X>[],
  x: X,
  ctx: ProxyContext,
  from = 0,
): StepResult | Promise<StepResult> {
  for (let i = from; i < steps.length; i++) {
    const step = steps[i] as ListedStep<X>;
    if (step.only && !applies(step.only, x)) continue;
    const result = step.run(x, ctx);
    if (result === undefined) continue;
    // The last step's promise is the answer itself: no second promise to wrap it (the forward's case).
    if (result instanceof Promise)
      return i === steps.length - 1 ? result : result.then((r: StepResult) => (r === undefined ? runSteps(steps, x, ctx, i + 1) : r));
    return result;
  }
  return undefined;
}

/** Whether a step's guard admits the request (step.ts, StepGuard). */
function applies(only: StepGuard, x: Exchange): boolean {
  if ('pathPrefix' in only) return x.path.startsWith(only.pathPrefix);
  return x.decision?.outcome === only.decision;
}

function answerStatus(x: Exchange, res: ServerResponse, status: Status, names: ShownNames): void {
  x.status = status.code;
  x.error ??= status.message;
  x.bytesOut = writeStatus(res, status, { [ROUTE_HEADER]: routeHeader(x.handling, null, x.outcome, names) });
}
