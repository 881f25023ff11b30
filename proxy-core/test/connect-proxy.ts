// A small HTTP CONNECT proxy on loopback for tests (real sockets): records every CONNECT target and
// the Proxy-Authorization it was given, and can map a host name or address to another (a proxy in
// front of a private network reaches addresses the test machine cannot).
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxy {
  readonly url: string;
  readonly port: number;
  /** HOST:PORT of every CONNECT, in order. */
  readonly targets: string[];
  /** Proxy-Authorization header of every CONNECT ('' when absent). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** Host (as the client wrote it) → host to dial instead. */
  readonly map?: Readonly<Record<string, string>>;
  /** When set, a CONNECT without exactly this Proxy-Authorization gets 407. */
  readonly requireAuthorization?: string;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const targets: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    targets.push(target);
    const auth = String(req.headers['proxy-authorization'] ?? '');
    authorizations.push(auth);
    client.on('error', () => client.destroy());
    if (options.requireAuthorization !== undefined && auth !== options.requireAuthorization) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (!m) {
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const host = options.map?.[m[1] as string] ?? (m[1] as string);
    const upstream = net.connect(Number(m[2]), host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    client.on('close', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    targets,
    authorizations,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
