// Connection upgrades (exec, attach, port-forward over SPDY/3.1 or WebSocket) through the server's
// undici pool: same TLS verification, client certificate and connect timeout as every other request.
// A 101 is relayed with X-Peerscope-Route and then bytes flow both ways untouched until either side
// closes. An answer other than 101 (a 403 or 404 Status) reaches the client as it is; a failure before
// any answer becomes a 503 Status written on the raw socket. A server found unreachable ends its
// tunnels as it ends relayed watches (proxy/server-down.ts): before the 101 with a 503 Status naming
// it, after it by closing the client's side as if the server had closed it. On a silent link an exec
// or a WebSocket watch would otherwise wait for ever.
import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { serverLabel } from '../../contract/servers.js';
import { hopByHopNames } from '../util/headers.js';
import { writeStatusToSocket } from '../util/write-status.js';
import { failure } from '../util/status.js';
import { CLIENT_ABORTED, classifyUpstreamError, statusForUpstreamError, type UpstreamError } from './errors.js';
import { outgoingHeaders } from './forward.js';
import type { ServerLabels } from './forward-options.js';
import type { Upstreams } from './pool.js';
import { foundDown } from './relay.js';

export interface TunnelOptions {
  /** Added to the outgoing request (e.g. x-kubernetes-peer-proxied: true). */
  readonly addRequestHeaders?: Record<string, string>;
  /** Added to the upstream's answer (101 or not). */
  readonly responseHeaders?: Record<string, string>;
  /** Added to the Status Peerscope writes when the upstream could not be reached. */
  readonly errorResponseHeaders?: Record<string, string>;
  /** Aborted when the target is found unreachable: the tunnel ends (a tunnel has no other bound). */
  readonly serverDown?: AbortSignal;
  /**
   * How that Status names the server (serverLabel: host name and identity; the server set is one),
   * asked only on a failure; absent: its identity, quoted.
   */
  readonly labels?: ServerLabels;
}

export interface TunnelResult {
  /** 101 for a tunnel, the upstream's status for another answer, 503 (or 400) for Peerscope's own. */
  readonly status: number;
  /** Bytes from the client after its request head. */
  readonly bytesIn: number;
  /** Bytes from the upstream after its response head. */
  readonly bytesOut: number;
  readonly error?: UpstreamError;
}

/** An HTTP/1.1 response head; header values come from a parsed response or from us, never raw input. */
function responseHead(
  status: number,
  statusMessage: string | undefined,
  headers: IncomingHttpHeaders,
  extra: Record<string, string>,
): string {
  const lines = [`HTTP/1.1 ${status} ${statusMessage || STATUS_CODES[status] || ''}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  for (const [name, value] of Object.entries(extra)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const hop = hopByHopNames(headers.connection);
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!hop.has(name)) out[name] = value;
  return out;
}

/** Bytes a client may send before the 101 (a SPDY or WebSocket client normally sends none). */
const MAX_EARLY_BYTES = 1024 * 1024;

export function tunnel(
  upstreams: Upstreams,
  target: string,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  opts: TunnelOptions = {},
): Promise<TunnelResult> {
  // A reset by the client must not crash the process; its 'close' does the cleanup.
  client.on('error', () => undefined);
  const upstream = upstreams.get(target);
  if (!upstream) {
    const error: UpstreamError = { code: 'PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER', message: `no apiserver is named "${target}"` };
    writeStatusToSocket(
      client,
      statusForUpstreamError(opts.labels?.label(target) ?? serverLabel(target), error),
      opts.errorResponseHeaders,
    );
    return Promise.resolve({ status: 503, bytesIn: 0, bytesOut: 0, error });
  }
  const protocol = req.headers.upgrade;
  if (!protocol) {
    writeStatusToSocket(client, failure(400, 'BadRequest', 'an upgrade request needs an Upgrade header'), opts.errorResponseHeaders);
    return Promise.resolve({ status: 400, bytesIn: 0, bytesOut: 0 });
  }
  return new Promise((resolve) => {
    const session = new TunnelSession(client, head, target, protocol, opts, resolve);
    upstream.pool.dispatch(
      {
        path: req.url ?? '/',
        method: req.method ?? 'GET',
        // undici writes Connection: upgrade and Upgrade itself from `upgrade`.
        headers: outgoingHeaders(req, opts.addRequestHeaders, upstream.config.bearerToken?.()),
        upgrade: protocol,
      },
      session,
    );
  });
}

/**
 * One tunnel, from the request sent to both sides closed: undici's handler for the upstream's answer
 * (a 101 to splice, or another answer to relay), the client watched until then (it may leave, or
 * send the new protocol's first bytes early), and the server-down signal at every stage.
 */
class TunnelSession implements Dispatcher.DispatchHandler {
  private status = 0;
  private bytesIn = 0;
  private bytesOut = 0;
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private clientClosed = false;
  private serverFoundDown: UpstreamError | undefined;
  /** Set once spliced: ends both sides of the open tunnel. */
  private endSpliced: (() => void) | undefined;
  /** What the client sent before the 101: it belongs to the new protocol and is kept for the upstream. */
  private readonly early: Buffer[];
  private earlyBytes: number;

  constructor(
    private readonly client: Duplex,
    head: Buffer,
    private readonly target: string,
    private readonly protocol: string,
    private readonly opts: TunnelOptions,
    private readonly resolve: (result: TunnelResult) => void,
  ) {
    this.early = [head];
    this.earlyBytes = head.length;
    client.once('close', this.onClientCloseBeforeAnswer);
    // The listener's sockets allow half-open connections, so a client that leaves shows as 'end' first.
    client.once('end', this.onClientCloseBeforeAnswer);
    opts.serverDown?.addEventListener('abort', this.onServerDown, { once: true });
    // Read the client while waiting for the answer: a paused socket never notices that its peer left.
    client.on('data', this.keepEarly);
    client.resume();
  }

  private readonly keepEarly = (chunk: Buffer): void => {
    this.early.push(chunk);
    this.earlyBytes += chunk.length;
    if (this.earlyBytes > MAX_EARLY_BYTES) this.client.pause();
  };

  private readonly onClientCloseBeforeAnswer = (): void => {
    this.clientClosed = true;
    this.controller?.abort(Object.assign(new Error('the client went away'), { code: 'UND_ERR_ABORTED' }));
  };

  private readonly onServerDown = (): void => {
    if (this.settled || !this.opts.serverDown) return;
    this.serverFoundDown = foundDown(this.opts.serverDown);
    if (this.endSpliced) this.endSpliced();
    else this.controller?.abort(Object.assign(new Error('the apiserver was found unreachable'), { code: 'UND_ERR_ABORTED' }));
  };

  private finish(error?: UpstreamError): void {
    if (this.settled) return;
    this.settled = true;
    this.client.off('close', this.onClientCloseBeforeAnswer);
    this.client.off('end', this.onClientCloseBeforeAnswer);
    this.opts.serverDown?.removeEventListener('abort', this.onServerDown);
    const { status, bytesIn, bytesOut } = this;
    this.resolve({ status, bytesIn, bytesOut, ...(error ? { error } : {}) });
  }

  /** The 101's socket joined to the client's: bytes flow both ways untouched until either side closes. */
  private splice(server: Duplex): void {
    const { client } = this;
    client.off('close', this.onClientCloseBeforeAnswer);
    client.off('end', this.onClientCloseBeforeAnswer);
    if (this.clientClosed || client.destroyed) {
      server.destroy();
      return this.finish(CLIENT_ABORTED);
    }
    server.on('error', () => undefined);
    let interruption: UpstreamError | undefined;
    server.once('error', (err) => {
      interruption = classifyUpstreamError(err, 'after-headers');
    });
    client.off('data', this.keepEarly);
    for (const chunk of this.early) if (chunk.length) server.write(chunk);
    this.bytesIn += this.earlyBytes;
    server.on('data', (chunk: Buffer) => {
      this.bytesOut += chunk.length;
    });
    client.on('data', (chunk: Buffer) => {
      this.bytesIn += chunk.length;
    });
    server.pipe(client);
    client.pipe(server);
    // Either side closing ends the session: a half-open tunnel would only leak a socket.
    let open = 2;
    const onClose = (other: Duplex) => () => {
      other.destroy();
      if (--open === 0) this.finish(interruption);
    };
    server.once('close', onClose(client));
    client.once('close', onClose(server));
    this.endSpliced = () => {
      interruption = this.serverFoundDown;
      // The client's side ends with a FIN, as when the server closes; the server's 'close' above
      // then closes the client's socket, so a client that keeps its side open is not waited for.
      client.end();
      server.destroy();
    };
    if (this.serverFoundDown) this.endSpliced();
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.clientClosed) c.abort(Object.assign(new Error('the client went away'), { code: 'UND_ERR_ABORTED' }));
    else if (this.opts.serverDown?.aborted) this.onServerDown();
  }

  onRequestUpgrade(_c: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, socket: Duplex): void {
    this.status = statusCode;
    // Connection and Upgrade are hop-by-hop, but on a 101 they are the answer itself.
    const answered = headers.upgrade;
    const relayed: IncomingHttpHeaders = {
      ...endToEnd(headers),
      connection: 'Upgrade',
      upgrade: typeof answered === 'string' ? answered : this.protocol,
    };
    this.client.write(responseHead(statusCode, 'Switching Protocols', relayed, this.opts.responseHeaders ?? {}));
    this.splice(socket);
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    this.client.off('data', this.keepEarly);
    // Not upgraded (a 403, a 404 Status…): relay it and close, as the apiserver closes too.
    this.status = statusCode;
    const head = responseHead(statusCode, statusMessage, { ...endToEnd(headers), connection: 'close' }, this.opts.responseHeaders ?? {});
    this.client.write(head);
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytesOut += chunk.length;
    if (!this.client.write(chunk)) {
      c.pause();
      this.client.once('drain', () => c.resume());
    }
  }

  onResponseEnd(): void {
    this.client.end();
    this.finish();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    const { client } = this;
    client.off('data', this.keepEarly);
    if (this.clientClosed) {
      client.destroy();
      return this.finish(CLIENT_ABORTED);
    }
    if (this.status === 0) {
      const error = this.serverFoundDown ?? classifyUpstreamError(err, 'before-response');
      this.status = 503;
      const { labels, errorResponseHeaders } = this.opts;
      writeStatusToSocket(
        client,
        statusForUpstreamError(labels?.label(this.target) ?? serverLabel(this.target), error),
        errorResponseHeaders,
      );
      return this.finish(error);
    }
    client.destroy();
    this.finish(this.serverFoundDown ?? classifyUpstreamError(err, 'after-headers'));
  }
}
