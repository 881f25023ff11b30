// Forwards one request to one apiserver and streams the answer back: bodies are piped both ways,
// never buffered; watch and log streams flush as they arrive; back-pressure reaches the upstream; a
// client that goes away aborts the upstream request. Nothing is retried here: a 503 stays visible.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { hopByHopNames } from '../proxy/passes/hop-by-hop.js';
import { writeStatus } from '../proxy/passes/write-status.js';
import { CLIENT_ABORTED, classifyUpstreamError, statusForUpstreamError, type UpstreamError } from './errors.js';
import type { Upstreams } from './pool.js';

export interface ForwardOptions {
  /** Added to the outgoing request (e.g. x-kubernetes-peer-proxied: true). */
  readonly addRequestHeaders?: Record<string, string>;
  /** Added to the response when the upstream answered. */
  readonly responseHeaders?: Record<string, string>;
  /** Added to the Status Peerscope writes when the upstream could not be reached. */
  readonly errorResponseHeaders?: Record<string, string>;
  /** A watch or follow: the response may stay open indefinitely; its headers are flushed at once. */
  readonly watch?: boolean;
  /** The port is shutting down: end this (long-running) response cleanly, as an apiserver ends watches. */
  readonly shutdown?: AbortSignal;
  /** false: on a failure before the response, return it without writing the 503 (the caller may retry). */
  readonly writeErrors?: boolean;
}

export interface ForwardResult {
  /** The status sent to the client: the upstream's, 503 for a failure before it, 0 if nothing was sent. */
  readonly status: number;
  /** Request body bytes (the declared Content-Length; a chunked body counts 0). */
  readonly bytesIn: number;
  /** Response body bytes relayed from the upstream. */
  readonly bytesOut: number;
  /** The upstream's headers reached the client; an error after that means a truncated body. */
  readonly headersSent: boolean;
  readonly error?: UpstreamError;
}

/** Request headers that are the proxy's own business, or that undici sets itself and refuses. */
const NOT_FORWARDED = new Set(['host', 'expect']);

/** The outgoing request headers: end-to-end headers of the client, the server's token, the additions. */
export function outgoingHeaders(req: IncomingMessage, add: Record<string, string> | undefined, bearer: string | undefined): Record<string, string | string[]> {
  const hop = hopByHopNames(req.headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || hop.has(name) || NOT_FORWARDED.has(name)) continue;
    out[name] = value;
  }
  // As kubectl proxy does: the core's credential only for a client that brought none of its own.
  if (bearer && out.authorization === undefined) out.authorization = `Bearer ${bearer}`;
  if (add) Object.assign(out, add);
  return out;
}

/** The response headers relayed to the client: end-to-end headers (Warning included) plus `extra`. */
export function relayedResponseHeaders(headers: Record<string, string | string[] | undefined>, extra: Record<string, string> | undefined): OutgoingHttpHeaders {
  const hop = hopByHopNames(headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hop.has(name)) out[name] = value;
  }
  if (extra) Object.assign(out, extra);
  return out;
}

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const SHUTTING_DOWN: UpstreamError = { code: 'UPSTREAM_FAILED', message: 'the proxy is shutting down' };

export async function forward(upstreams: Upstreams, target: string, req: IncomingMessage, res: ServerResponse, opts: ForwardOptions = {}): Promise<ForwardResult> {
  const bytesIn = Number(req.headers['content-length'] ?? 0) || 0;
  const failBeforeResponse = (error: UpstreamError): ForwardResult => {
    // Drain what is left of the request body so the Status can be read on a kept-alive connection.
    if (!req.readableEnded && !req.destroyed) req.resume();
    if (opts.writeErrors === false) return { status: 0, bytesIn, bytesOut: 0, headersSent: false, error };
    writeStatus(res, statusForUpstreamError(target, error), opts.errorResponseHeaders);
    return { status: 503, bytesIn, bytesOut: 0, headersSent: false, error };
  };

  const upstream = upstreams.get(target);
  if (!upstream) return failBeforeResponse({ code: 'UPSTREAM_UNKNOWN_SERVER', message: `no apiserver is named "${target}"` });

  const abort = new AbortController();
  let clientGone = false;
  const onResponseClose = () => {
    if (res.writableFinished) return;
    clientGone = true;
    abort.abort();
  };
  res.once('close', onResponseClose);
  let shuttingDown = false;
  const onShutdown = () => {
    shuttingDown = true;
    abort.abort();
  };
  opts.shutdown?.addEventListener('abort', onShutdown, { once: true });

  try {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await upstream.pool.request({
        path: req.url ?? '/',
        method: req.method ?? 'GET',
        headers: outgoingHeaders(req, opts.addRequestHeaders, upstream.config.bearerToken?.()),
        // The IncomingMessage itself: undici pauses it when the upstream socket is full.
        ...(hasBody(req) ? { body: req } : {}),
        signal: abort.signal,
        // Long-running responses may be silent for minutes between events.
        ...(opts.watch ? { bodyTimeout: 0 } : {}),
      });
    } catch (err) {
      if (clientGone) {
        res.destroy();
        return { status: 0, bytesIn, bytesOut: 0, headersSent: false, error: CLIENT_ABORTED };
      }
      return failBeforeResponse(shuttingDown ? SHUTTING_DOWN : classifyUpstreamError(err, 'before-response'));
    }
    return await relay(answer, res, opts, () => shuttingDown, bytesIn);
  } finally {
    res.off('close', onResponseClose);
    opts.shutdown?.removeEventListener('abort', onShutdown);
  }
}

/** Streams the upstream's answer to the client, chunk by chunk, with pipe()'s back-pressure. */
async function relay(answer: Dispatcher.ResponseData, res: ServerResponse, opts: ForwardOptions, shuttingDown: () => boolean, bytesIn: number): Promise<ForwardResult> {
  const body = answer.body;
  // Destroying an undici body emits an AbortError: without a listener it would crash the process.
  body.on('error', () => undefined);
  if (res.destroyed) {
    body.destroy();
    return { status: 0, bytesIn, bytesOut: 0, headersSent: false, error: CLIENT_ABORTED };
  }
  res.writeHead(answer.statusCode, relayedResponseHeaders(answer.headers, opts.responseHeaders));
  if (opts.watch) res.flushHeaders();
  let bytesOut = 0;
  body.on('data', (chunk: Buffer) => {
    bytesOut += chunk.length;
  });
  // pipe(), not pipeline(): on a failure pipeline destroys the response, and a shutdown must end it
  // cleanly instead (the terminating chunk tells the client the watch is over, not broken).
  const ending = await new Promise<{ error?: unknown; clientGone?: boolean }>((resolve) => {
    // on(), not once(): an aborted body may report more than one error.
    body.on('error', (error) => {
      body.unpipe(res);
      if (shuttingDown()) res.end();
      else res.destroy();
      resolve({ error });
    });
    res.once('finish', () => resolve({}));
    res.once('close', () => resolve(res.writableFinished ? {} : { clientGone: true }));
    body.pipe(res);
  });
  const status = answer.statusCode;
  if (ending.clientGone) {
    body.destroy();
    return { status, bytesIn, bytesOut, headersSent: true, error: CLIENT_ABORTED };
  }
  if (ending.error !== undefined && !shuttingDown()) {
    // After the headers a failure can only cut the stream, as kube-apiserver's proxy does.
    return { status, bytesIn, bytesOut, headersSent: true, error: classifyUpstreamError(ending.error, 'after-headers') };
  }
  return { status, bytesIn, bytesOut, headersSent: true };
}
