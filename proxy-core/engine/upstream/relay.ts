// The client's side of one forwarded request: undici's callback-level handler that streams the
// upstream's answer to the client, and the 503 Status for a failure before any answer. forward.ts only
// builds the request and dispatches it with a Relay; everything that happens per chunk lives here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { serverLabel } from '../../contract/servers.js';
import { writeStatus } from '../util/write-status.js';
import { CLIENT_ABORTED, classifyUpstreamError, statusForUpstreamError, type UpstreamError } from './errors.js';
import type { ForwardOptions, ForwardResult } from './forward-options.js';
import { relayedRawHeaders, warningValues } from './response-headers.js';

const SHUTTING_DOWN: UpstreamError = { code: 'PEERSCOPE_ERR_UPSTREAM_FAILED', message: 'the proxy is shutting down' };

/** The port's probes found the server unreachable while this long-running request was open. */
/** The error of a request ended because its server was found unreachable (`signal`'s reason says how). */
export function foundDown(signal: AbortSignal): UpstreamError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  return { code: 'PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN', message: `found unreachable by the port's health probe (${reason})` };
}

/** No answer from the upstream: the 503 Status (or nothing, when the caller may retry) and the result. */
export function failBeforeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  opts: ForwardOptions,
  bytesIn: number,
  error: UpstreamError,
): ForwardResult {
  // Drain what is left of the request body so the Status can be read on a kept-alive connection.
  if (!req.readableEnded && !req.destroyed) req.resume();
  if (opts.writeErrors === false) return { status: 0, bytesIn, bytesOut: 0, headersSent: false, error };
  writeStatus(res, statusForUpstreamError(opts.labels?.label(target) ?? serverLabel(target), error), opts.errorResponseHeaders);
  return { status: 503, bytesIn, bytesOut: 0, headersSent: false, error };
}

/**
 * The most body bytes held for one write to the client (see Relay.pending). Fewer, larger writes wake
 * the client fewer times: a 100,000-event watch leaves in ~156 writes instead of ~1,030 with 64 KiB,
 * the port's CPU 70 → 60 ms and the client's 37 → 31 on Node 22 (docs/performance.md, `watch-ab.ts`).
 * The client's connection holds twice this before the upstream pauses (proxy/listener.ts).
 */
export const MAX_PENDING_BYTES = 512 * 1024;

/**
 * Streams the upstream's answer to the client as undici delivers it: headers, then the chunks of
 * each event-loop turn written together (no intermediate stream); when the client's socket is full the
 * upstream read pauses until it drains. A client that goes away, or a shutdown during a watch,
 * aborts the upstream request; so does the server being found unreachable during a watch.
 *
 * undici's callback-level handler (onConnect/onHeaders/onData/onComplete/onError): it hands over the
 * raw header list, which is relayed as a list, without building and copying header objects.
 */
export class Relay implements Dispatcher.DispatchHandler {
  private abort: ((err?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  private status = 0;
  private warnings: string[] | undefined;
  private bytesOut = 0;
  private headersSent = false;
  private clientGone = false;
  private shuttingDown = false;
  private serverFoundDown = false;
  private settled = false;
  private readonly onClose = (): void => {
    if (this.settled || this.res.writableFinished) return;
    this.clientGone = true;
    this.abort?.(new Error('the client went away'));
  };
  private readonly onShutdown = (): void => {
    this.shuttingDown = true;
    this.abort?.(new Error('the proxy is shutting down'));
  };
  private readonly onServerDown = (): void => {
    this.serverFoundDown = true;
    this.abort?.(new Error('the apiserver was found unreachable'));
  };
  private readonly onDrain = (): void => {
    this.blocked = false;
    this.resume?.();
  };
  /**
   * Body chunks that arrived in this turn of the event loop, written to the client together at its
   * end (setImmediate): Node hands over a TLS connection's data one record at a time,
   * each in a callback of its own, and writing each chunk made one write system call apiece to the
   * client — a 100,000-event watch wrote ~7,900 times for ~1,600 reads of the apiserver.
   */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushQueued: NodeJS.Immediate | undefined;
  /** The client's socket is full: undici is told to pause at its next chunk, until 'drain'. */
  private blocked = false;
  private readonly flush = (): void => {
    this.flushQueued = undefined;
    const chunks = this.takePending();
    if (!chunks || this.res.destroyed) return;
    if (!this.writeAll(chunks, false) && !this.blocked) {
      this.blocked = true;
      this.res.once('drain', this.onDrain);
    }
  };

  /**
   * The chunks leave in one writev, without being copied into one Buffer: node:http corks the
   * connection at a response's first write of a turn and uncorks it on the next tick. The response
   * itself is never corked: from Node 22 a corked chunked response holds its chunks in a buffer of its
   * own and the write's result speaks of that buffer, not of the connection; the 'drain' that should
   * follow never comes on Node 22 and comes inside uncork() on Node 24, before a listener can be
   * added. A relay that waited for it stalled every chunked answer after its first 64 KiB.
   */
  private writeAll(chunks: Buffer[], end: boolean): boolean {
    const { res } = this;
    const last = chunks.length - 1;
    for (let i = 0; i < last; i++) res.write(chunks[i] as Buffer);
    if (!end) return res.write(chunks[last] as Buffer);
    res.end(chunks[last]);
    return true;
  }

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly target: string,
    private readonly opts: ForwardOptions,
    private readonly bytesIn: number,
    private readonly resolve: (result: ForwardResult) => void,
  ) {
    res.once('close', this.onClose);
    opts.shutdown?.addEventListener('abort', this.onShutdown, { once: true });
    opts.serverDown?.addEventListener('abort', this.onServerDown, { once: true });
  }

  /** The client went away while its request body was still being read: nothing was sent upstream. */
  clientLeftBeforeSending(): void {
    this.clientGone = true;
    this.res.destroy();
    this.finish(CLIENT_ABORTED);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    // The client left, or the port began shutting down, while the request waited for a connection.
    if (this.clientGone) abort(new Error('the client went away'));
    else if (this.shuttingDown) abort(new Error('the proxy is shutting down'));
    else if (this.serverFoundDown || this.opts.serverDown?.aborted) this.onServerDown();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // Informational answers (1xx) are the connection's business, as with undici's request().
    if (statusCode < 200) return true;
    if (this.res.destroyed) {
      this.clientGone = true;
      this.abort?.(new Error('the client went away'));
      return false;
    }
    this.resume = resume;
    this.status = statusCode;
    this.warnings = warningValues(rawHeaders);
    this.res.writeHead(statusCode, relayedRawHeaders(rawHeaders, this.opts.responseHeaders));
    this.headersSent = true;
    if (this.opts.watch) this.res.flushHeaders();
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bytesOut += chunk.length;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    // Within a turn, libuv may read a fast stream many times over: hold at most this much.
    if (this.pendingBytes >= MAX_PENDING_BYTES) this.flush();
    else this.flushQueued ??= setImmediate(this.flush);
    return !this.blocked;
  }

  onComplete(): void {
    this.endWithPending();
    this.finish(undefined);
  }

  /** The last chunks and the end leave together. */
  private endWithPending(): void {
    const chunks = this.takePending();
    if (chunks) this.writeAll(chunks, true);
    else this.res.end();
  }

  private takePending(): Buffer[] | undefined {
    if (this.flushQueued) {
      clearImmediate(this.flushQueued);
      this.flushQueued = undefined;
    }
    const { pending } = this;
    if (pending.length === 0) return undefined;
    this.pending = [];
    this.pendingBytes = 0;
    return pending;
  }

  onError(err: Error): void {
    const { res } = this;
    if (this.clientGone) {
      this.takePending();
      res.destroy();
      return this.finish(CLIENT_ABORTED);
    }
    const down = this.serverFoundDown && this.opts.serverDown ? foundDown(this.opts.serverDown) : undefined;
    if (!this.headersSent) {
      const error = this.shuttingDown ? SHUTTING_DOWN : (down ?? classifyUpstreamError(err, 'before-response'));
      return this.settle(failBeforeResponse(this.req, res, this.target, this.opts, this.bytesIn, error));
    }
    // After the headers a failure can only cut the stream, as kube-apiserver's proxy does; a
    // shutdown, or the server found unreachable, ends it cleanly instead (the terminating chunk
    // tells the client the watch is over, and a reflector lists again).
    if (this.shuttingDown || down) {
      this.endWithPending();
      return this.finish(down);
    }
    this.takePending();
    res.destroy();
    this.finish(classifyUpstreamError(err, 'after-headers'));
  }

  private finish(error: UpstreamError | undefined): void {
    const result: { -readonly [K in keyof ForwardResult]: ForwardResult[K] } = {
      status: this.status,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      headersSent: this.headersSent,
    };
    if (error) result.error = error;
    if (this.warnings) result.warnings = this.warnings;
    this.settle(result);
  }

  private settle(result: ForwardResult): void {
    if (this.settled) return;
    this.settled = true;
    this.res.off('close', this.onClose);
    this.res.off('drain', this.onDrain);
    this.opts.shutdown?.removeEventListener('abort', this.onShutdown);
    this.opts.serverDown?.removeEventListener('abort', this.onServerDown);
    this.resolve(result);
  }
}
