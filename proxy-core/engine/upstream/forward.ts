// Forwards one request to one apiserver and streams the answer back: answers and long or chunked request
// bodies are streamed (a request body of known length up to 64 KiB is read whole first, to go out with its
// head); watch and log streams flush as they arrive; back-pressure reaches the upstream; a
// client that goes away aborts the upstream request. Nothing is retried here: a 503 stays visible.
// This file builds and dispatches the request (what of the client's request goes upstream: its
// end-to-end headers, plus the server's token and the port's additions; tunnel.ts sends the same);
// relay.ts carries the answer to the client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { hopByHopNames } from '../util/headers.js';
import type { ForwardOptions, ForwardResult } from './forward-options.js';
import type { Upstreams } from './pool.js';
import { failBeforeResponse, Relay } from './relay.js';

// forward()'s options and result stay importable from here for its callers.
export type { ForwardOptions, ForwardResult } from './forward-options.js';

export function forward(
  upstreams: Upstreams,
  target: string,
  req: IncomingMessage,
  res: ServerResponse,
  opts: ForwardOptions = {},
): Promise<ForwardResult> {
  const bytesIn = Number(req.headers['content-length'] ?? 0) || 0;
  const upstream = upstreams.get(target);
  if (!upstream)
    return Promise.resolve(
      failBeforeResponse(req, res, target, opts, bytesIn, {
        code: 'PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER',
        message: `no apiserver is named "${target}"`,
      }),
    );
  const bearer = upstream.config.bearerToken?.();
  const onUnauthorized = upstream.config.onUnauthorized;
  return new Promise((resolve) => {
    // A 401 to the core's own credential (the client brought none): like client-go, an exec plugin runs
    // again and a token file is re-read, so the next request carries a fresh one.
    const done =
      bearer && onUnauthorized && req.headers.authorization === undefined
        ? (r: ForwardResult) => {
            if (r.status === 401) onUnauthorized();
            resolve(r);
          }
        : resolve;
    const relay = new Relay(req, res, target, opts, bytesIn, done);
    // Built without object spreads: they take V8's slow clone path, microseconds per request.
    const options: Dispatcher.DispatchOptions = {
      path: req.url ?? '/',
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: outgoingHeaders(req, opts.addRequestHeaders, bearer),
    };
    // Long-running responses may be silent for minutes between events.
    if (opts.watch) options.bodyTimeout = 0;
    if (!hasBody(req)) return void upstream.pool.dispatch(options, relay);
    const whole = wholeBodyLength(req);
    if (whole === undefined) {
      // The IncomingMessage itself: undici pauses it when the upstream socket is full.
      options.body = req;
      return void upstream.pool.dispatch(options, relay);
    }
    readWholeBody(req, whole, (body) => {
      if (body === undefined) return relay.clientLeftBeforeSending();
      options.body = body;
      upstream.pool.dispatch(options, relay);
    });
  });
}

/**
 * The most request-body bytes read whole before the request goes upstream. A small body of declared
 * length (a create, an update, a patch) is read first and handed to undici as one Buffer: undici then
 * writes it with the head, without the stream machinery it runs for a body stream (~6 µs of CPU per
 * POST, docs/performance.md). Longer, chunked or `Expect: 100-continue` bodies are streamed as they come.
 */
export const WHOLE_BODY_MAX_BYTES = 64 * 1024;

function wholeBodyLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined || req.headers.expect !== undefined || req.readableEnded) return undefined;
  const length = Number(req.headers['content-length']);
  return Number.isSafeInteger(length) && length > 0 && length <= WHOLE_BODY_MAX_BYTES ? length : undefined;
}

/** Reads the body (node:http has checked it against Content-Length); undefined when the client left first. */
function readWholeBody(req: IncomingMessage, length: number, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer): void => void chunks.push(chunk);
  const finish = (body: Buffer | undefined): void => {
    req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
    done(body);
  };
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length));
  const onGone = (): void => finish(undefined);
  req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
}

/** Request headers that are the proxy's own business, or that undici sets itself and refuses. */
const NOT_FORWARDED = new Set(['host', 'expect']);

/** The outgoing request headers: end-to-end headers of the client, the server's token, the additions. */
export function outgoingHeaders(
  req: IncomingMessage,
  add: Record<string, string> | undefined,
  bearer: string | undefined,
): Record<string, string | string[]> {
  const hop = hopByHopNames(req.headers.connection);
  const out: Record<string, string | string[]> = {};
  const headers = req.headers;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || hop.has(name) || NOT_FORWARDED.has(name)) continue;
    out[name] = value;
  }
  // As kubectl proxy does: the core's credential only for a client that brought none of its own.
  if (bearer && out.authorization === undefined) out.authorization = `Bearer ${bearer}`;
  if (add) for (const name in add) out[name] = add[name] as string;
  return out;
}

/** Whether the request has a body to send (a declared length other than 0, or a transfer coding). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
