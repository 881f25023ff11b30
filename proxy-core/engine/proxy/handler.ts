// The local port's request handler: the request path as ordered lists of named steps (httpxy's
// passes; each in proxy/steps/), and the glue that runs them and writes what they leave. Plain
// requests and upgrades share admission (once, before anything answers) and routing. stepList checks,
// when it is compiled, that each step's needs are filled by a step before it (steps/step.ts).
// Every refusal is decided before anything reaches an apiserver; every response carries
// X-Peerscope-Route; every error Peerscope itself produces is a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from '../util/status.js';
import { failure } from '../util/status.js';
import { writeStatus, writeStatusToSocket } from '../util/write-status.js';
import type { ProxyContext } from './context.js';
import {
  newExchange,
  recordExchange,
  ROUTE_HEADER,
  routeHeader,
  type Exchange,
  type RequestExchange,
  type UpgradeExchange,
  type ShownNames,
} from './exchange.js';
import { hostCheck, originCheck, requestFilter, stripIdentity } from './steps/admit.js';
import { controlEndpoints } from './steps/control.js';
import { absoluteTarget, classify, decode, requestHead, upgradeTarget } from './steps/read.js';
import { forwardOrServe, pickHandling, settle } from './steps/route.js';
import { ANSWERED, runSteps, stepList, type ListedStep } from './steps/step.js';
import { tunnelUpgrade } from './steps/tunnel.js';

export { CONTROL_PREFIX, type ProxyContext } from './context.js';

/**
 * Admission: every request, plain, upgrade or to the port's own endpoints, once. Classified first, so
 * that a refused request is recorded with what it asked for.
 */
const ADMISSION = [classify, hostCheck, originCheck, requestFilter, stripIdentity] as const;

/** Routing: the handling server a load balancer would pick, then the settled decision. */
const ROUTING = [pickHandling, settle] as const;

/** A plain request: read and decode it, admit it, serve the port's own endpoints, route, forward. */
export const REQUEST_STEPS: readonly ListedStep<RequestExchange>[] = stepList<RequestExchange>()(
  absoluteTarget,
  requestHead,
  decode,
  ...ADMISSION,
  controlEndpoints,
  ...ROUTING,
  forwardOrServe,
);

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
      if (result !== undefined && result !== ANSWERED) {
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

function answerStatus(x: Exchange, res: ServerResponse, status: Status, names: ShownNames): void {
  x.status = status.code;
  x.error ??= status.message;
  x.bytesOut = writeStatus(res, status, { [ROUTE_HEADER]: routeHeader(x.handling, null, x.outcome, names) });
}
