// The local port's request handler: glue that runs the request path's steps (steps/index.ts) and
// writes what they leave. In the order the code runs them, for a plain request:
//   absolute-target → request-head → decode-path → classify → host-check → origin-check →
//   request-filter → strip-identity → control-endpoints (/.peerscope/…) → pick-handling-server →
//   settle-decision (routing/settle.ts) → forward (or the merged discovery document; one retry on
//   another handling server when the first refuses the connection) → record.
// An upgrade runs upgrade-target → request-head → the same classify … strip-identity, pick-handling-server,
// settle-decision → tunnel → record.
// Every refusal is decided before anything reaches an apiserver; every response carries
// X-Peerscope-Route; every error Peerscope itself produces is a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from '../util/status.js';
import { failure } from '../util/status.js';
import { writeStatus, writeStatusToSocket } from '../util/write-status.js';
import type { ProxyContext } from './context.js';
import { newExchange, recordExchange, type Exchange } from './exchange.js';
import { ROUTE_HEADER, routeHeader } from './route-header.js';
import { ANSWERED, REQUEST_STEPS, runSteps, UPGRADE_STEPS } from './steps/index.js';

export { CONTROL_PREFIX, type ProxyContext } from './context.js';

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
      if (result !== undefined && result !== ANSWERED) answerStatus(x, res, result);
    } catch (err) {
      x.error = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) answerStatus(x, res, failure(500, 'InternalError', `peerscope: ${x.error}`));
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
        writeStatusToSocket(socket, result, { [ROUTE_HEADER]: routeHeader(x.handling, null, x.outcome) });
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

function answerStatus(x: Exchange, res: ServerResponse, status: Status): void {
  x.status = status.code;
  x.error ??= status.message;
  x.bytesOut = writeStatus(res, status, { [ROUTE_HEADER]: routeHeader(x.handling, null, x.outcome) });
}
