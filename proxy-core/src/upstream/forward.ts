// Forwards one request to one apiserver and streams the answer back: bodies are streamed both ways,
// never buffered; watch and log streams flush as they arrive; back-pressure reaches the upstream; a
// client that goes away aborts the upstream request. Nothing is retried here: a 503 stays visible.
// This file builds and dispatches the request; relay.ts carries the answer to the client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ForwardOptions, ForwardResult } from './forward-options.js';
import type { Upstreams } from './pool.js';
import { failBeforeResponse, Relay } from './relay.js';
import { outgoingHeaders, hasBody } from './request-headers.js';

// forward()'s options and result, and hasBody (the request path asks it beside forward()), stay
// importable from here for its callers.
export type { ForwardOptions, ForwardResult } from './forward-options.js';
export { hasBody } from './request-headers.js';

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
    // The IncomingMessage itself: undici pauses it when the upstream socket is full.
    if (hasBody(req)) options.body = req;
    // Long-running responses may be silent for minutes between events.
    if (opts.watch) options.bodyTimeout = 0;
    upstream.pool.dispatch(options, relay);
  });
}
