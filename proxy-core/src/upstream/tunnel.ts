// Connection upgrades (exec, attach, port-forward over SPDY/3.1 or WebSocket): a raw connection to
// the apiserver carries the client's request head, the answer's head gets X-Peerscope-Route, and then
// bytes flow both ways untouched until either side closes. An answer other than 101 (a 404 or 403
// Status) reaches the client the same way.
import type { IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { writeStatusToSocket } from '../proxy/passes/write-status.js';
import { classifyUpstreamError, statusForUpstreamError, type UpstreamError } from './errors.js';
import { outgoingHeaders } from './forward.js';
import type { Upstreams } from './pool.js';

export interface TunnelOptions {
  readonly addRequestHeaders?: Record<string, string>;
  readonly responseHeaders?: Record<string, string>;
  readonly errorResponseHeaders?: Record<string, string>;
  readonly connectTimeoutMs?: number;
}

export interface TunnelResult {
  readonly status: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly error?: UpstreamError;
}

export function tunnel(upstreams: Upstreams, target: string, req: IncomingMessage, client: Duplex, head: Buffer, opts: TunnelOptions = {}): Promise<TunnelResult> {
  const upstream = upstreams.get(target);
  if (!upstream) {
    const error: UpstreamError = { code: 'UPSTREAM_UNKNOWN_SERVER', message: `no apiserver is named "${target}"` };
    writeStatusToSocket(client, statusForUpstreamError(target, error), opts.errorResponseHeaders);
    return Promise.resolve({ status: 503, bytesIn: 0, bytesOut: 0, error });
  }
  const { origin, config } = upstream;
  const port = Number(origin.port || (origin.protocol === 'https:' ? 443 : 80));
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let status = 0;
    let bytesIn = head.length;
    let bytesOut = 0;
    let settled = false;
    const finish = (error?: UpstreamError) => {
      if (settled) return;
      settled = true;
      resolve({ status, bytesIn, bytesOut, ...(error ? { error } : {}) });
    };
    const server: Socket = origin.protocol === 'https:'
      ? tlsConnect({ host, port, ...(config.ca ? { ca: config.ca } : {}), servername: config.servername ?? (/^[\d.]+$|:/.test(host) ? '' : host), ...(config.clientCert ? { cert: config.clientCert.cert, key: config.clientCert.key } : {}) })
      : netConnect({ host, port });
    const timer = setTimeout(() => server.destroy(Object.assign(new Error('connect timeout'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), opts.connectTimeoutMs ?? 10_000);
    server.once(origin.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      const headers = outgoingHeaders(req, opts.addRequestHeaders, config.bearerToken?.());
      // The upgrade itself is hop-by-hop, but it is the point of this request: forward it.
      headers.connection = 'Upgrade';
      if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;
      headers.host = origin.host;
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      for (const [k, v] of Object.entries(headers)) for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
      server.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) server.write(head);
      let pending = Buffer.alloc(0);
      const onHead = (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) {
          if (pending.length > 64 * 1024) server.destroy(Object.assign(new Error('response head too large'), { code: 'HPE_HEADER_OVERFLOW' }));
          return;
        }
        server.off('data', onHead);
        const headText = pending.subarray(0, end).toString('latin1');
        status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headText)?.[1] ?? 0);
        if (!status) return server.destroy(Object.assign(new Error('not an HTTP response'), { code: 'HPE_INVALID_CONSTANT' }));
        const extra = Object.entries(opts.responseHeaders ?? {}).map(([k, v]) => `\r\n${k}: ${v}`).join('');
        const rest = pending.subarray(end);
        client.write(Buffer.concat([Buffer.from(headText + extra, 'latin1'), rest]));
        bytesOut += rest.length - 4;
        server.on('data', (c: Buffer) => {
          bytesOut += c.length;
        });
        client.on('data', (c: Buffer) => {
          bytesIn += c.length;
        });
        server.pipe(client);
        client.pipe(server);
      };
      server.on('data', onHead);
    });
    server.on('error', (err) => {
      clearTimeout(timer);
      const error = classifyUpstreamError(err);
      if (status === 0) {
        status = 503;
        writeStatusToSocket(client, statusForUpstreamError(target, error), opts.errorResponseHeaders);
      } else client.destroy();
      finish(error);
    });
    server.on('close', () => {
      clearTimeout(timer);
      client.end();
      finish();
    });
    client.on('error', () => server.destroy());
    client.on('close', () => {
      server.destroy();
      finish();
    });
  });
}
