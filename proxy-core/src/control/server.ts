// The browser-mode host of CoreClient: JSON calls (POST /api/rpc/<method>) and Server-Sent Events
// (GET /api/events) over a CoreClient, plus the built renderer from dist/renderer/.
//
// Security (the port is reachable by every web page the operator opens, so treat each as hostile):
// - loopback only;
// - Host must name this listener (DNS rebinding); what a browser marks as sent from another page
//   (an Origin other than http://<that Host>, Origin: null, Sec-Fetch-Site cross-site or
//   same-site) is refused on every path — the API, the event stream and the static files alike —
//   by the same rule as the local port's (proxy/passes/origin-check.ts);
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
import { coreClientMethods, createCoreDispatcher, type CoreClient, type CoreClientMethod, type CoreEvent } from '../../contract/client.js';
import { PeerscopeError, toCallError, type PeerscopeErrorCode } from '../../contract/errors.js';
import { isMethodOf } from '../../contract/rpc.js';
import { MAX_SNAPSHOT_BYTES } from '../../contract/snapshot.js';
import { checkOrigin } from '../proxy/passes/origin-check.js';

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
  if (!LOOPBACK_HOSTS.has(host)) throw new PeerscopeError('PEERSCOPE_ERR_LISTEN', `the control host listens on loopback only, not on ${host}`);
  const rendererDir = resolve(options.rendererDir ?? defaultRendererDir());
  const token = randomBytes(32).toString('base64url');
  const tokenDigest = sha256(token);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const streams = new Set<ServerResponse>();
  const dispatch = createCoreDispatcher(options.client);
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);

  const server: Server = createServer((req, res) => {
    baseHeaders(res);
    try {
      const hostHeader = (req.headers.host ?? '').toLowerCase();
      if (!allowedHosts().has(hostHeader)) return sendError(res, 403, 'PEERSCOPE_ERR_REFUSED', 'this host name is not allowed');
      // The local port's own rule: an Origin other than this page's own (http://<the Host sent>), null,
      // or a Sec-Fetch-Site of cross-site or same-site is a web page elsewhere.
      if (checkOrigin(req.headers, hostHeader, [])) return sendError(res, 403, 'PEERSCOPE_ERR_REFUSED', 'requests from other origins are refused');

      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname.startsWith('/api/')) {
        res.setHeader('cache-control', 'no-store');
        if (!authorized(req.headers.authorization, tokenDigest)) return sendError(res, 401, 'PEERSCOPE_ERR_REFUSED', 'a valid token is required: open the URL peerscope printed');
        if (url.pathname === '/api/events' && req.method === 'GET') return openEventStream(res);
        const rpc = /^\/api\/rpc\/([A-Za-z]+)$/.exec(url.pathname);
        if (rpc && req.method === 'POST') return void handleCall(req, res, rpc[1]!);
        return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', 'no such endpoint');
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'PEERSCOPE_ERR_NO_METHOD', 'method not allowed');
      return serveStatic(res, rendererDir, url.pathname, req.method === 'HEAD');
    } catch (err) {
      if (!res.headersSent) sendFailure(res, err, 'the request');
      else res.destroy();
    }
  });

  async function handleCall(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (!isMethodOf(coreClientMethods, name)) return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', `no method ${name}`);
    const method: CoreClientMethod = name;
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return sendError(res, 415, 'PEERSCOPE_ERR_BODY_NOT_JSON', 'send application/json');
    try {
      const body = await readBody(req, BODY_LIMITS[method] ?? MAX_BODY_BYTES);
      const result = await dispatch(method, parseBody(body));
      sendJson(res, 200, result);
    } catch (err) {
      sendFailure(res, err, method);
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

/** The HTTP status of each failure a call can meet; every other refusal of the core is a 400. */
const STATUS_OF: Partial<Record<PeerscopeErrorCode, number>> = {
  PEERSCOPE_ERR_NO_METHOD: 404,
  PEERSCOPE_ERR_BODY_TOO_LARGE: 413,
  PEERSCOPE_ERR_REFUSED: 403,
  PEERSCOPE_ERR_INTERNAL: 500,
};

function parseBody(body: string): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body);
  } catch {
    throw new PeerscopeError('PEERSCOPE_ERR_BODY_NOT_JSON', 'the body is not JSON');
  }
}

/** Every failure goes out as { error: { code, message } } (contract/errors.ts), its status from its code. */
function sendFailure(res: ServerResponse, err: unknown, what: string): void {
  const error = toCallError(err, what);
  if (error.code === 'PEERSCOPE_ERR_INTERNAL') console.error(`peerscope: ${what} failed:`, err);
  // A body over its limit is not read to its end: the connection closes once the answer is written.
  if (error.code === 'PEERSCOPE_ERR_BODY_TOO_LARGE') res.setHeader('connection', 'close');
  sendJson(res, STATUS_OF[error.code as PeerscopeErrorCode] ?? 400, { error });
}

function sendError(res: ServerResponse, status: number, code: PeerscopeErrorCode, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}


function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      // Say so at once rather than read what will be refused.
      reject(new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the body exceeds ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PeerscopeError('PEERSCOPE_ERR_BODY_TOO_LARGE', `the body exceeds ${limit} bytes`));
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
    return sendError(res, 400, 'PEERSCOPE_ERR_NO_METHOD', 'bad path');
  }
  if (relative === '/' || relative === '') relative = '/index.html';
  const file = resolve(join(root, relative));
  if (!file.startsWith(root + sep) || relative.includes('\0')) return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', 'not found');
  if (!existsSync(file) || !statSync(file).isFile()) {
    if (relative === '/index.html') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(`The UI is not built (no ${file}): run npm run build.\n`);
    }
    return sendError(res, 404, 'PEERSCOPE_ERR_NO_METHOD', 'not found');
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
