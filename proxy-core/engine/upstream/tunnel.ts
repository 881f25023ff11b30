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
  // A reset by the client must not crash the process; its 'close' below does the cleanup.
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
    let status = 0;
    let bytesIn = 0;
    let bytesOut = 0;
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let clientClosed = false;
    let serverFoundDown: UpstreamError | undefined;
    /** Set once spliced: ends both sides of the open tunnel. */
    let endSpliced: (() => void) | undefined;
    const onServerDown = () => {
      if (settled || !opts.serverDown) return;
      serverFoundDown = foundDown(opts.serverDown);
      if (endSpliced) endSpliced();
      else controller?.abort(Object.assign(new Error('the apiserver was found unreachable'), { code: 'UND_ERR_ABORTED' }));
    };
    const finish = (error?: UpstreamError) => {
      if (settled) return;
      settled = true;
      client.off('close', onClientCloseBeforeAnswer);
      client.off('end', onClientCloseBeforeAnswer);
      opts.serverDown?.removeEventListener('abort', onServerDown);
      resolve({ status, bytesIn, bytesOut, ...(error ? { error } : {}) });
    };
    const onClientCloseBeforeAnswer = () => {
      clientClosed = true;
      controller?.abort(Object.assign(new Error('the client went away'), { code: 'UND_ERR_ABORTED' }));
    };
    client.once('close', onClientCloseBeforeAnswer);
    // The listener's sockets allow half-open connections, so a client that leaves shows as 'end' first.
    client.once('end', onClientCloseBeforeAnswer);
    opts.serverDown?.addEventListener('abort', onServerDown, { once: true });
    // Read the client while waiting for the answer: a paused socket never notices that its peer left.
    // What it sends early belongs to the new protocol and is kept for the upstream (bounded).
    const early: Buffer[] = [head];
    let earlyBytes = head.length;
    const keepEarly = (chunk: Buffer) => {
      early.push(chunk);
      earlyBytes += chunk.length;
      if (earlyBytes > MAX_EARLY_BYTES) client.pause();
    };
    client.on('data', keepEarly);
    client.resume();

    const splice = (server: Duplex) => {
      client.off('close', onClientCloseBeforeAnswer);
      client.off('end', onClientCloseBeforeAnswer);
      if (clientClosed || client.destroyed) {
        server.destroy();
        return finish(CLIENT_ABORTED);
      }
      server.on('error', () => undefined);
      let interruption: UpstreamError | undefined;
      server.once('error', (err) => {
        interruption = classifyUpstreamError(err, 'after-headers');
      });
      client.off('data', keepEarly);
      for (const chunk of early) if (chunk.length) server.write(chunk);
      bytesIn += earlyBytes;
      server.on('data', (chunk: Buffer) => {
        bytesOut += chunk.length;
      });
      client.on('data', (chunk: Buffer) => {
        bytesIn += chunk.length;
      });
      server.pipe(client);
      client.pipe(server);
      // Either side closing ends the session: a half-open tunnel would only leak a socket.
      let open = 2;
      const onClose = (other: Duplex) => () => {
        other.destroy();
        if (--open === 0) finish(interruption);
      };
      server.once('close', onClose(client));
      client.once('close', onClose(server));
      endSpliced = () => {
        interruption = serverFoundDown;
        // The client's side ends with a FIN, as when the server closes; the server's 'close' above
        // then closes the client's socket, so a client that keeps its side open is not waited for.
        client.end();
        server.destroy();
      };
      if (serverFoundDown) endSpliced();
    };

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (clientClosed) c.abort(Object.assign(new Error('the client went away'), { code: 'UND_ERR_ABORTED' }));
        else if (opts.serverDown?.aborted) onServerDown();
      },
      onRequestUpgrade(_c, statusCode, headers, socket) {
        status = statusCode;
        // Connection and Upgrade are hop-by-hop, but on a 101 they are the answer itself.
        const answered = headers.upgrade;
        const relayed: IncomingHttpHeaders = {
          ...endToEnd(headers),
          connection: 'Upgrade',
          upgrade: typeof answered === 'string' ? answered : protocol,
        };
        client.write(responseHead(statusCode, 'Switching Protocols', relayed, opts.responseHeaders ?? {}));
        splice(socket);
      },
      onResponseStart(_c, statusCode, headers, statusMessage) {
        client.off('data', keepEarly);
        // Not upgraded (a 403, a 404 Status…): relay it and close, as the apiserver closes too.
        status = statusCode;
        client.write(responseHead(statusCode, statusMessage, { ...endToEnd(headers), connection: 'close' }, opts.responseHeaders ?? {}));
      },
      onResponseData(c, chunk) {
        bytesOut += chunk.length;
        if (!client.write(chunk)) {
          c.pause();
          client.once('drain', () => c.resume());
        }
      },
      onResponseEnd() {
        client.end();
        finish();
      },
      onResponseError(_c, err) {
        client.off('data', keepEarly);
        if (clientClosed) {
          client.destroy();
          return finish(CLIENT_ABORTED);
        }
        if (status === 0) {
          const error = serverFoundDown ?? classifyUpstreamError(err, 'before-response');
          status = 503;
          writeStatusToSocket(
            client,
            statusForUpstreamError(opts.labels?.label(target) ?? serverLabel(target), error),
            opts.errorResponseHeaders,
          );
          return finish(error);
        }
        client.destroy();
        finish(serverFoundDown ?? classifyUpstreamError(err, 'after-headers'));
      },
    };

    upstream.pool.dispatch(
      {
        path: req.url ?? '/',
        method: req.method ?? 'GET',
        // undici writes Connection: upgrade and Upgrade itself from `upgrade`.
        headers: outgoingHeaders(req, opts.addRequestHeaders, upstream.config.bearerToken?.()),
        upgrade: protocol,
      },
      handler,
    );
  });
}
