// Forwards one request to one apiserver and streams the answer back: bodies are piped both ways,
// never buffered; watch and log streams flush as they arrive; back-pressure reaches the upstream; a
// client that goes away aborts the upstream request. Nothing is retried: a 503 stays visible.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { hopByHopNames } from '../proxy/passes/hop-by-hop.js';
import { writeStatus } from '../proxy/passes/write-status.js';
import { classifyUpstreamError, statusForUpstreamError, type UpstreamError } from './errors.js';
import type { Upstreams } from './pool.js';

export interface ForwardOptions {
  /** Added to the outgoing request (e.g. x-kubernetes-peer-proxied: true). */
  readonly addRequestHeaders?: Record<string, string>;
  /** Added to the response when the upstream answered. */
  readonly responseHeaders?: Record<string, string>;
  /** Added to the Status Peerscope writes when the upstream could not be reached. */
  readonly errorResponseHeaders?: Record<string, string>;
  /** A watch or follow: the response may stay open indefinitely. */
  readonly watch?: boolean;
  /** The port is shutting down: end this (long-running) response cleanly, as an apiserver ends watches. */
  readonly shutdown?: AbortSignal;
  /** false: on a failure before the response, return it without writing the 503 (the caller may retry). */
  readonly writeErrors?: boolean;
}

export interface ForwardResult {
  readonly status: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly headersSent: boolean;
  readonly error?: UpstreamError;
}

/** Request headers that are the proxy's own business or that undici refuses. */
const NOT_FORWARDED = new Set(['host', 'expect']);

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

function responseHeaders(headers: Record<string, string | string[] | undefined>, extra: Record<string, string> | undefined): OutgoingHttpHeaders {
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

export async function forward(upstreams: Upstreams, target: string, req: IncomingMessage, res: ServerResponse, opts: ForwardOptions = {}): Promise<ForwardResult> {
  const upstream = upstreams.get(target);
  const bytesIn = Number(req.headers['content-length'] ?? 0) || 0;
  if (!upstream) {
    const error: UpstreamError = { code: 'UPSTREAM_UNKNOWN_SERVER', message: `no apiserver is named "${target}"` };
    writeStatus(res, statusForUpstreamError(target, error), opts.errorResponseHeaders);
    return { status: 503, bytesIn: 0, bytesOut: 0, headersSent: false, error };
  }
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  let shuttingDown = false;
  const onShutdown = () => {
    shuttingDown = true;
    abort.abort();
  };
  opts.shutdown?.addEventListener('abort', onShutdown, { once: true });
  let bytesOut = 0;
  try {
    const body = hasBody(req) ? req : undefined;
    const answer = await upstream.pool.request({
      path: req.url ?? '/',
      method: (req.method ?? 'GET') as 'GET',
      headers: outgoingHeaders(req, opts.addRequestHeaders, upstream.config.bearerToken?.()),
      ...(body ? { body } : {}),
      signal: abort.signal,
    });
    res.writeHead(answer.statusCode, responseHeaders(answer.headers, opts.responseHeaders));
    if (opts.watch) res.flushHeaders();
    answer.body.on('data', (chunk: Buffer) => {
      bytesOut += chunk.length;
    });
    // pipe(), not pipeline(): on a failure pipeline destroys the response, and a shutdown must end it
    // cleanly instead (the terminating chunk tells the client the watch is over, not broken).
    const streamError = await new Promise<unknown>((resolve) => {
      answer.body.once('error', (err) => {
        answer.body.unpipe(res);
        if (shuttingDown) res.end();
        else res.destroy();
        resolve(err);
      });
      res.once('finish', () => resolve(undefined));
      res.once('close', () => resolve(undefined));
      answer.body.pipe(res);
    });
    if (streamError && !shuttingDown) {
      // After the headers a failure can only cut the stream, as kube-apiserver's proxy does.
      const error = abort.signal.aborted ? { code: 'CLIENT_ABORTED' as const, message: 'the client went away' } : classifyUpstreamError(streamError);
      return { status: answer.statusCode, bytesIn, bytesOut, headersSent: true, error };
    }
    return { status: answer.statusCode, bytesIn, bytesOut, headersSent: true };
  } catch (err) {
    const error = abort.signal.aborted ? { code: 'CLIENT_ABORTED' as const, message: 'the client went away' } : classifyUpstreamError(err);
    if (!req.readableEnded) req.resume();
    if (res.headersSent || abort.signal.aborted) {
      res.destroy();
      return { status: res.statusCode, bytesIn, bytesOut, headersSent: res.headersSent, error };
    }
    if (opts.writeErrors === false) return { status: 0, bytesIn, bytesOut: 0, headersSent: false, error };
    const status = statusForUpstreamError(target, error);
    writeStatus(res, status, opts.errorResponseHeaders);
    return { status: 503, bytesIn, bytesOut: 0, headersSent: false, error };
  } finally {
    res.off('close', onClose);
    opts.shutdown?.removeEventListener('abort', onShutdown);
  }
}
