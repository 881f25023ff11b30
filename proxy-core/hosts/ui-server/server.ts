// The browser-mode host of the core service: JSON calls (POST /api/rpc/<method>) and Server-Sent Events
// (GET /api/events) over a CoreService, plus the built renderer from dist/renderer/.
//
// Security (the port is reachable by every web page the operator opens, so treat each as hostile):
// - loopback only;
// - Host must name this listener (DNS rebinding); what a browser marks as sent from another page
//   (an Origin other than http://<that Host>, Origin: null, Sec-Fetch-Site cross-site or
//   same-site) is refused on every path — the API, the event stream and the static files alike —
//   by the same rule as the local port's (proxy/steps/admit.ts, checkOrigin);
// - every API call carries `Authorization: Bearer <token>`: a random per-launch token, compared in
//   constant time. The token reaches the page once, in the URL fragment (`/#token=…`): a fragment is
//   never sent to a server, never logged and never leaks in a Referer; the page takes it out of the
//   address bar at once and keeps it for the tab only. A header (not a cookie) also means no
//   cross-site request can ever carry it, so no CSRF token is needed;
// - a strict Content-Security-Policy on every response: the renderer's own scripts and styles only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { coreClientMethods, createCoreDispatcher, type CoreClientMethod } from '../../contract/client.js';
import { PeerscopeError } from '../../contract/errors.js';
import { isMethodOf } from '../../contract/rpc.js';
import { MAX_SNAPSHOT_BYTES } from '../../contract/snapshot.js';
import { checkOrigin } from '../../engine/proxy/steps/admit.js';
import { baseHeaders, parseBody, readBody, sendError, sendFailure, sendJson } from './answers.js';
import { openEventStream } from './sse.js';
import { handleRecordingUpload, type RecordingImports } from './recording-upload.js';
import { RECORDING_UPLOAD_PATH } from '../../contract/recordings.js';
import { defaultRendererDir, serveStatic } from './static.js';
import { authorized, newToken } from './token.js';
import type { CoreService } from '../service/service.js';

export { CONTENT_SECURITY_POLICY } from './answers.js';
export { defaultRendererDir } from './static.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 64 * 1024;
/**
 * Calls that carry snapshots: a file's text as a JSON string (escaping grows it, up to about twice for
 * a file of quotes and newlines), or two parsed snapshots. Read only after the token was checked.
 */
const SNAPSHOT_BODY_BYTES = 2 * MAX_SNAPSHOT_BYTES + 1024 * 1024;
const BODY_LIMITS: Partial<Record<CoreClientMethod, number>> = { readSnapshot: SNAPSHOT_BODY_BYTES, compareSnapshots: SNAPSHOT_BODY_BYTES };

export interface UiServerOptions {
  readonly service: CoreService;
  /** 127.0.0.1 (default), ::1 or localhost: the UI server never listens beyond loopback. */
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** The built renderer; default dist/renderer/ of this checkout (or beside the CLI bundle). */
  readonly rendererDir?: string;
  /** SSE comment sent this often so proxies and browsers keep the stream open (default 15 s). */
  readonly heartbeatMs?: number;
  /** The host's recordings folder, for files uploaded from the Recordings screen; absent: uploads are refused. */
  readonly recordings?: RecordingImports;
}

export interface UiServer {
  /** Open this in a browser: it carries the token in its fragment. */
  readonly url: string;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new PeerscopeError('PEERSCOPE_ERR_LISTEN', `the UI server listens on loopback only, not on ${host}`);
  const rendererDir = resolve(options.rendererDir ?? defaultRendererDir());
  const { token, digest: tokenDigest } = newToken();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const streams = new Set<ServerResponse>();
  const dispatch = createCoreDispatcher(options.service);
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);

  const server: Server = createServer((req, res) => {
    baseHeaders(res);
    try {
      const hostHeader = (req.headers.host ?? '').toLowerCase();
      if (!allowedHosts().has(hostHeader)) return sendError(res, 403, 'PEERSCOPE_ERR_REFUSED', 'this host name is not allowed');
      // The local port's own rule: an Origin other than this page's own (http://<the Host sent>), null,
      // or a Sec-Fetch-Site of cross-site or same-site is a web page elsewhere.
      if (checkOrigin(req.headers, hostHeader, []))
        return sendError(res, 403, 'PEERSCOPE_ERR_REFUSED', 'requests from other origins are refused');

      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname.startsWith('/api/')) {
        res.setHeader('cache-control', 'no-store');
        if (!authorized(req.headers.authorization, tokenDigest))
          return sendError(res, 401, 'PEERSCOPE_ERR_REFUSED', 'a valid token is required: open the URL peerscope printed');
        if (url.pathname === '/api/events' && req.method === 'GET') return openEventStream(res, options.service, heartbeatMs, streams);
        // A method name: letters, then letters and digits (getFalse404sForWindow).
        const rpc = /^\/api\/rpc\/([A-Za-z][A-Za-z0-9]*)$/.exec(url.pathname);
        if (rpc && req.method === 'POST') return void handleCall(req, res, rpc[1]!);
        if (url.pathname === RECORDING_UPLOAD_PATH && req.method === 'POST')
          return void handleRecordingUpload(req, res, options.recordings);
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
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      return sendError(res, 415, 'PEERSCOPE_ERR_BODY_NOT_JSON', 'send application/json');
    try {
      const body = await readBody(req, BODY_LIMITS[method] ?? MAX_BODY_BYTES);
      const result = await dispatch(method, parseBody(body));
      sendJson(res, 200, result);
    } catch (err) {
      sendFailure(res, err, method);
    }
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
