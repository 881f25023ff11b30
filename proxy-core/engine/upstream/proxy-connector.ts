// Connections to an apiserver through an HTTP CONNECT proxy, for undici Pools and Agents: open a
// tunnel to HOST:PORT through the proxy (Node's own HTTP client parses the proxy's answer), then the
// usual TLS handshake inside it — verified against the kubeconfig's CA and server name exactly as a
// direct connection is. The proxy's credentials (userinfo of its URL) become Proxy-Authorization and
// appear nowhere else: errors name the proxy without them.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { PeerscopeError } from '../../contract/errors.js';
import { buildConnector } from './undici.js';
import { redactProxy } from './proxy-config.js';
import type { UpstreamTls } from './server-tls.js';

/**
 * The CONNECT proxy did not open the tunnel. `socketCode` is the socket-level code when there was one
 * (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT), so the failure is classified as a direct one would be.
 */
export class ProxyConnectError extends PeerscopeError {
  override readonly name = 'ProxyConnectError';
  constructor(
    message: string,
    readonly socketCode?: string,
    options?: { cause?: unknown },
  ) {
    super('PEERSCOPE_ERR_PROXY_CONNECT', message, options);
  }
}

export interface ProxyConnectorOptions {
  readonly proxy: URL;
  readonly tls: UpstreamTls;
  /** For the CONNECT exchange and, separately, the TLS handshake. */
  readonly timeoutMs: number;
  /** Each CONNECT target, for tests and logs (HOST:PORT). */
  readonly onTunnel?: (target: string) => void;
}

/** An undici connector (the `connect` option of a Pool, Client or Agent) that goes through `proxy`. */
export function proxyConnector(options: ProxyConnectorOptions): BuildConnector.connector {
  const tlsConnect = buildConnector({ ...options.tls, timeout: options.timeoutMs });
  return (opts, callback) => {
    const port = opts.port || (opts.protocol === 'https:' ? '443' : '80');
    const target = `${opts.hostname}:${port}`;
    openTunnel(options.proxy, target, options.timeoutMs).then(
      (socket) => {
        options.onTunnel?.(target);
        if (opts.protocol !== 'https:') return callback(null, socket);
        tlsConnect({ ...opts, httpSocket: socket }, (err, tlsSocket) => {
          if (err) {
            socket.destroy();
            return callback(err, null);
          }
          callback(null, tlsSocket as Socket);
        });
      },
      (err: Error) => callback(err, null),
    );
  };
}

/** A raw TCP stream to `target` (HOST:PORT) through the proxy. */
export function openTunnel(proxy: URL, target: string, timeoutMs: number): Promise<Socket> {
  const shown = redactProxy(proxy);
  const headers: Record<string, string> = { host: target };
  if (proxy.username || proxy.password) {
    const userinfo = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(userinfo).toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  const port = Number(proxy.port || (secure ? 443 : 80));
  const hostname = proxy.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    const req = (secure ? https : http).request({
      host: hostname,
      port,
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
      timeout: timeoutMs,
      // An https:// proxy is verified against the system's roots, with its own name.
      ...(secure ? { servername: hostname } : {}),
    });
    req.once('connect', (res: http.IncomingMessage, socket: Socket, head: Buffer) => {
      if (settled) return void socket.destroy();
      const code = res.statusCode ?? 0;
      if (code < 200 || code >= 300) {
        socket.destroy();
        return fail(new ProxyConnectError(`proxy ${shown} answered CONNECT ${target} with ${code} ${res.statusMessage ?? ''}`.trim()));
      }
      settled = true;
      socket.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('timeout', () => {
      req.destroy();
      fail(new ProxyConnectError(`proxy ${shown}: no answer to CONNECT ${target} within ${timeoutMs} ms`, 'UND_ERR_CONNECT_TIMEOUT'));
    });
    req.once('error', (err: NodeJS.ErrnoException) => {
      fail(new ProxyConnectError(`proxy ${shown}: ${err.message}`, err.code, { cause: err }));
    });
    req.end();
  });
}
