// The browser-mode host of CoreClient: JSON calls (POST /api/rpc/<method>) and Server-Sent Events
// (GET /api/events) over a CoreClient, plus the built renderer from dist/renderer/.
//
// Security (the port is reachable by every web page the operator opens, so treat each as hostile):
// - loopback only;
// - Host must name this listener (DNS rebinding), and an Origin, when sent, must be this listener's;
// - every API call carries `Authorization: Bearer <token>`: a random per-launch token, compared in
//   constant time. The token reaches the page once, in the URL fragment (`/#token=…`): a fragment is
//   never sent to a server, never logged and never leaks in a Referer; the page takes it out of the
//   address bar at once and keeps it for the tab only. A header (not a cookie) also means no
//   cross-site request can ever carry it, so no CSRF token is needed;
// - a strict Content-Security-Policy on every response: the renderer's own scripts and styles only.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZodError } from 'zod';
import { coreClientMethods, type CoreClient, type CoreClientMethod, type CoreEvent } from '../../contract/client.js';
import { MAX_SNAPSHOT_BYTES } from '../../contract/snapshot.js';

export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 64 * 1024;
/**
 * Calls that carry snapshots: a file's text as a JSON string (escaping grows it, up to about twice for
 * a file of quotes and newlines), or two parsed snapshots. Read only after the token was checked.
 */
const SNAPSHOT_BODY_BYTES = 2 * MAX_SNAPSHOT_BYTES + 1024 * 1024;
const BODY_LIMITS: Partial<Record<CoreClientMethod, number>> = { readSnapshot: SNAPSHOT_BODY_BYTES, compareSnapshots: SNAPSHOT_BODY_BYTES };

export interface ControlServerOptions {
  readonly client: CoreClient;
  /** 127.0.0.1 (default), ::1 or localhost: the control host never listens beyond loopback. */
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** The built renderer; default dist/renderer/ of this checkout (or beside the CLI bundle). */
  readonly rendererDir?: string;
  /** SSE comment sent this often so proxies and browsers keep the stream open (default 15 s). */
  readonly heartbeatMs?: number;
}

export interface ControlServer {
  /** Open this in a browser: it carries the token in its fragment. */
  readonly url: string;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export function defaultRendererDir(): string {
  const candidates = [
    fileURLToPath(new URL('./renderer/', import.meta.url)), // dist/cli.mjs → dist/renderer/
    fileURLToPath(new URL('../../../dist/renderer/', import.meta.url)), // proxy-core/src/control/ → dist/renderer/
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[1]!;
}

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new Error(`the control host listens on loopback only, not on ${host}`);
  const rendererDir = resolve(options.rendererDir ?? defaultRendererDir());
  const token = randomBytes(32).toString('base64url');
  const tokenDigest = sha256(token);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const streams = new Set<ServerResponse>();
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const allowedOrigins = () => new Set([...allowedHosts()].map((h) => `http://${h}`));

  const server: Server = createServer((req, res) => {
    baseHeaders(res);
    try {
      const hostHeader = (req.headers.host ?? '').toLowerCase();
      if (!allowedHosts().has(hostHeader)) return sendJson(res, 403, { error: 'this host name is not allowed' });
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedOrigins().has(origin.toLowerCase())) return sendJson(res, 403, { error: 'cross-origin requests are refused' });
      const fetchSite = req.headers['sec-fetch-site'];
      if (fetchSite === 'cross-site' || fetchSite === 'same-site') return sendJson(res, 403, { error: 'cross-site requests are refused' });

      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname.startsWith('/api/')) {
        res.setHeader('cache-control', 'no-store');
        if (!authorized(req.headers.authorization, tokenDigest)) return sendJson(res, 401, { error: 'a valid token is required: open the URL peerscope printed' });
        if (url.pathname === '/api/events' && req.method === 'GET') return openEventStream(res);
        const rpc = /^\/api\/rpc\/([A-Za-z]+)$/.exec(url.pathname);
        if (rpc && req.method === 'POST') return void handleCall(req, res, rpc[1]!);
        return sendJson(res, 404, { error: 'no such endpoint' });
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'method not allowed' });
      return serveStatic(res, rendererDir, url.pathname, req.method === 'HEAD');
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: (err as Error).message });
      else res.destroy();
    }
  });

  async function handleCall(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (!Object.hasOwn(coreClientMethods, name)) return sendJson(res, 404, { error: `no method ${name}` });
    const method = name as CoreClientMethod;
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return sendJson(res, 415, { error: 'send application/json' });
    try {
      const body = await readBody(req, BODY_LIMITS[method] ?? MAX_BODY_BYTES);
      const raw: unknown = body.length === 0 ? {} : JSON.parse(body);
      const result = await invoke(options.client, method, raw);
      sendJson(res, 200, result);
    } catch (err) {
      if (err instanceof ZodError) return sendJson(res, 400, { error: err.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ') });
      if (err instanceof SyntaxError) return sendJson(res, 400, { error: 'the body is not JSON' });
      if (err instanceof BodyTooLarge) {
        // The rest of the body is not read: the connection ends once the answer is written.
        res.setHeader('connection', 'close');
        return sendJson(res, 413, { error: err.message });
      }
      sendJson(res, 400, { error: (err as Error).message });
    }
  }

  function openEventStream(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 2000\n\n');
    streams.add(res);
    // A client too slow to read loses routing batches (it is told how many), never peer or table news.
    let congested = false;
    let droppedBatches = 0;
    res.on('drain', () => {
      congested = false;
    });
    const send = (e: CoreEvent) => {
      if (e.type === 'routing' && congested) {
        droppedBatches++;
        return;
      }
      const ok = res.write(`data: ${JSON.stringify(droppedBatches && e.type === 'routing' ? { ...e, droppedBatches } : e)}\n\n`);
      if (e.type === 'routing') droppedBatches = 0;
      if (!ok) congested = true;
    };
    const unsubscribe = options.client.subscribe(send);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(res);
    };
    // The response's close is the connection's end (a request's 'close' can come earlier).
    res.on('close', end);
  }

  server.listen(options.port ?? 0, host);
  await new Promise<void>((resolvePromise, reject) => {
    server.once('listening', resolvePromise);
    server.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host === '::1' ? '[::1]' : host;
  const origin = `http://${shownHost}:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    async close() {
      for (const s of streams) s.end();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Calls one CoreClient method with its validated argument object. */
async function invoke(client: CoreClient, method: CoreClientMethod, raw: unknown): Promise<unknown> {
  switch (method) {
    case 'getOverview': return client.getOverview();
    case 'getRouteTable': return client.getRouteTable();
    case 'getEvents': return client.getEvents(coreClientMethods.getEvents.args.parse(raw));
    case 'getHealthHistory': return client.getHealthHistory();
    case 'getDiscoveryViews': return client.getDiscoveryViews();
    case 'setDiscoveryMode': return client.setDiscoveryMode(coreClientMethods.setDiscoveryMode.args.parse(raw).mode);
    case 'setPolicy': return client.setPolicy(coreClientMethods.setPolicy.args.parse(raw).policy);
    case 'takeSnapshot': return client.takeSnapshot();
    case 'readSnapshot': return client.readSnapshot(coreClientMethods.readSnapshot.args.parse(raw));
    case 'compareSnapshots': return client.compareSnapshots(coreClientMethods.compareSnapshots.args.parse(raw));
    case 'getImpactReport': return client.getImpactReport(coreClientMethods.getImpactReport.args.parse(raw));
    case 'startRollout': return client.startRollout();
    case 'pauseRollout': return client.pauseRollout();
    case 'setTrafficRate': return client.setTrafficRate(coreClientMethods.setTrafficRate.args.parse(raw).rps);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests, so the comparison takes the same time whatever the length or content sent. */
function authorized(header: string | undefined, tokenDigest: Buffer): boolean {
  const match = /^Bearer (\S+)$/.exec(header ?? '');
  return timingSafeEqual(sha256(match?.[1] ?? ''), tokenDigest) && match !== null;
}

function baseHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      // Say so at once rather than read what will be refused.
      reject(new BodyTooLarge(`the body exceeds ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge(`the body exceeds ${limit} bytes`));
        // Discard the rest rather than reset the socket, so the client gets the 413 it can show.
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

function serveStatic(res: ServerResponse, root: string, pathname: string, headOnly: boolean): void {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return sendJson(res, 400, { error: 'bad path' });
  }
  if (relative === '/' || relative === '') relative = '/index.html';
  const file = resolve(join(root, relative));
  if (!file.startsWith(root + sep) || relative.includes('\0')) return sendJson(res, 404, { error: 'not found' });
  if (!existsSync(file) || !statSync(file).isFile()) {
    if (relative === '/index.html') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(`The UI is not built (no ${file}): run npm run build.\n`);
    }
    return sendJson(res, 404, { error: 'not found' });
  }
  const body = readFileSync(file);
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    // Vite fingerprints every asset name; index.html must always be fresh.
    'cache-control': relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(headOnly ? undefined : body);
}
