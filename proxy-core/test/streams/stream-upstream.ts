// A stand-in kube-apiserver for the large-stream tests, run in a process of its own
// (`node --import tsx stream-upstream.ts CONFIG`): one that shares an event loop with the port or the
// client cannot outrun them, which hid the stall of chunked answers on Node 22 and 24.
//
// It streams as kube-apiserver does: 16 KiB writes that wait for 'drain' when the socket is full,
// chunked (watches, large lists) or with Content-Length. It serves the discovery of one GVR
// (example.io/v1 things) and core pods (for exec), /readyz, and:
//   GET  /apis/example.io/v1/things?watch=true&bytes=N            a watch of N bytes, chunked
//   GET  /apis/example.io/v1/things?bytes=N&framing=chunked|length a list of N bytes
//   POST /apis/example.io/v1/namespaces/d/things[?slow=1]          hashes the body (slow: reads with pauses)
//   upgrade /api/v1/namespaces/d/pods/p/exec                       echoes every byte back
//   GET  /stats                                                    the counters below, as JSON
// CONFIG is a JSON file: { "tls": { "cert": PEM, "key": PEM } } for HTTPS, {} for plain HTTP.
// The first line on stdout is the URL it listens on.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { streamBytes } from './stream-bytes.js';

export interface StreamStats {
  /** Times a write to a client found the socket full and waited for 'drain' (answers and echoes). */
  drainWaits: number;
  /** SHA-256 and length of the last request body received. */
  lastBody: { sha256: string; bytes: number } | null;
}

const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as { tls?: { cert: string; key: string } };
const WRITE = 16 * 1024;
const stats: StreamStats = { drainWaits: 0, lastBody: null };
const cache = new Map<number, Buffer>();
const bytesOf = (n: number): Buffer => cache.get(n) ?? (cache.set(n, streamBytes(n)).get(n) as Buffer);

const DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const group = (name: string, resource: string, kind: string) => ({
  metadata: { name },
  versions: [
    {
      version: 'v1',
      freshness: 'Current',
      resources: [
        { resource, responseKind: { group: '', version: '', kind }, scope: 'Namespaced', verbs: ['create', 'get', 'list', 'watch'] },
      ],
    },
  ],
});
const discovery = (items: unknown[]) =>
  JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items });
const APIS = discovery([group('example.io', 'things', 'Thing')]);
const API = discovery([group('', 'pods', 'Pod')]);

/** Writes `body` in 16 KiB pieces, each after the last was accepted or drained. */
function stream(res: ServerResponse, body: Buffer): void {
  let at = 0;
  const pump = (): void => {
    while (at < body.length && !res.destroyed) {
      const piece = body.subarray(at, at + WRITE);
      at += piece.length;
      if (!res.write(piece)) {
        stats.drainWaits++;
        return void res.once('drain', pump);
      }
    }
    res.end();
  };
  pump();
}

function receive(req: IncomingMessage, res: ServerResponse, slow: boolean): void {
  const hash = createHash('sha256');
  let bytes = 0;
  let sinceRest = 0;
  req.on('data', (c: Buffer) => {
    hash.update(c);
    bytes += c.length;
    sinceRest += c.length;
    // A busy server: a short rest every 256 KiB, so the client's writes meet a full pipe.
    if (slow && sinceRest >= 256 * 1024) {
      sinceRest = 0;
      req.pause();
      setTimeout(() => req.resume(), 3);
    }
  });
  req.on('end', () => {
    stats.lastBody = { sha256: hash.digest('hex'), bytes };
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(stats.lastBody));
  });
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://upstream');
  const json = (body: string, type = 'application/json'): void => void res.writeHead(200, { 'content-type': type }).end(body);
  if (url.pathname === '/readyz' || url.pathname === '/livez') return void res.end('ok');
  if (url.pathname === '/version') return json('{"gitVersion":"v1.37.0-stream"}');
  if (url.pathname === '/apis') return json(APIS, DISCOVERY);
  if (url.pathname === '/api') return json(API, DISCOVERY);
  if (url.pathname === '/stats') return json(JSON.stringify(stats));
  if (url.pathname === '/apis/example.io/v1/things' && req.method === 'GET') {
    const body = bytesOf(Number(url.searchParams.get('bytes')));
    const length = url.searchParams.get('framing') === 'length' && url.searchParams.get('watch') !== 'true';
    res.writeHead(200, { 'content-type': 'application/json', ...(length ? { 'content-length': String(body.length) } : {}) });
    return stream(res, body);
  }
  if (url.pathname === '/apis/example.io/v1/namespaces/d/things' && req.method === 'POST')
    return receive(req, res, url.searchParams.has('slow'));
  res
    .writeHead(404, { 'content-type': 'application/json' })
    .end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
}

/** exec: after the 101, every byte back to the client, pausing the read while the client's side is full. */
function echo(socket: Socket): void {
  socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
  socket.on('data', (c: Buffer) => {
    if (!socket.write(c)) {
      stats.drainWaits++;
      socket.pause();
      socket.once('drain', () => socket.resume());
    }
  });
  socket.on('end', () => socket.end());
  socket.on('error', () => undefined);
}

const server: Server = config.tls ? createHttpsServer({ cert: config.tls.cert, key: config.tls.key }, handle) : createHttpServer(handle);
server.on('upgrade', (_req: IncomingMessage, socket: Socket) => echo(socket));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${config.tls ? 'https' : 'http'}://127.0.0.1:${port}\n`);
});
process.on('disconnect', () => process.exit(0));
