// Recording upstreams for the port fuzz: minimal apiservers on 127.0.0.1 port 0 that serve the
// aggregated discovery of a few GVRs (so the port routes between them), answer health and version,
// and record every other request exactly as it arrived — method, request target, raw header lines,
// body length and hash — before answering in the way the request's `x-fuzz-reply` header asks:
// plain JSON, chunked, 204, a 404 Status, hop-by-hop response headers, a large body, a delay, or a
// fault (reset before the headers, garbage instead of HTTP, a cut in the middle of the body).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { notFound } from '../../engine/util/status.js';

export const FUZZ_ID_HEADER = 'x-fuzz-id';
export const FUZZ_REPLY_HEADER = 'x-fuzz-reply';
export const UPSTREAM_HEADER = 'x-fuzz-upstream';

export const REPLY_MODES = [
  'json',
  'chunked',
  'no-content',
  'not-found',
  'hop-by-hop',
  'big',
  'slow',
  'warnings',
  'reset',
  'garbage',
  'cut-mid-body',
] as const;
export type ReplyMode = (typeof REPLY_MODES)[number];
/** Hop-by-hop headers the `hop-by-hop` reply sends; none may reach the client. */
export const RESPONSE_HOP_HEADERS = ['connection', 'keep-alive', 'proxy-authenticate', 'trailer', 'x-hop-secret', 'proxy-connection'];
export const BIG_BODY_BYTES = 300 * 1024;

export interface UpstreamRecord {
  readonly server: string;
  readonly method: string;
  /** The request target as received (Node decodes it as latin1, so bytes map 1:1 to chars). */
  readonly url: string;
  readonly httpVersion: string;
  /** Raw header lines, [name, value, name, value, …]. */
  readonly rawHeaders: readonly string[];
  readonly fuzzId: string | undefined;
  readonly upgrade: boolean;
  bodyBytes: number;
  bodyHash: string;
  /** false while the body is being received, or when the sender went away before its end. */
  bodyComplete: boolean;
}

export interface FuzzUpstream {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** Every request that was not one of the port's own reads (health, version, discovery). */
  readonly records: UpstreamRecord[];
  /** The port's own reads (user-agent "peerscope", no fuzz id), counted by path. */
  readonly ownReads: Map<string, number>;
  close(): Promise<void>;
}

/** "group/version/resource" (core group ""), scope. */
export interface FuzzGvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

const OWN_READ_PATHS = new Set([
  '/readyz',
  '/livez',
  '/healthz',
  '/version',
  '/api',
  '/apis',
  // The port's own read of each server's OpenAPI v3 index (rule P8: the merged /openapi/v3).
  '/openapi/v3',
  // And of its OpenAPI v2 document (P8: the merged /openapi/v2), served as JSON only.
  '/openapi/v2',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  '/apis/apiregistration.k8s.io/v1/apiservices',
]);

/** A minimal OpenAPI v2 document (rule P8 merges it; its content does not matter here). */
const OPENAPI_V2 = JSON.stringify({ swagger: '2.0', info: { title: 'Kubernetes', version: 'fuzz' }, paths: {}, definitions: {} });

/** A kube-openapi index naming each group-version the server serves (hashes per server). */
function openApiV3Index(gvrs: readonly FuzzGvr[]): string {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const g of gvrs) {
    const key = g.group === '' ? `api/${g.version}` : `apis/${g.group}/${g.version}`;
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${createHash('sha256').update(key).digest('hex').toUpperCase()}` };
  }
  return JSON.stringify({ paths });
}

function discovery(gvrs: readonly FuzzGvr[], core: boolean): string {
  const groups = new Map<string, Map<string, FuzzGvr[]>>();
  for (const g of gvrs) {
    if ((g.group === '') !== core) continue;
    const versions = groups.get(g.group) ?? new Map<string, FuzzGvr[]>();
    groups.set(g.group, versions);
    versions.set(g.version, [...(versions.get(g.version) ?? []), g]);
  }
  const items = [...groups].map(([group, versions]) => ({
    metadata: { name: group },
    versions: [...versions].map(([version, resources]) => ({
      version,
      freshness: 'Current',
      resources: resources.map((r) => ({
        resource: r.resource,
        responseKind: { group: r.group, version: r.version, kind: r.resource },
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.resource,
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      })),
    })),
  }));
  return JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function startFuzzUpstream(name: string, gvrs: readonly FuzzGvr[]): Promise<FuzzUpstream> {
  const records: UpstreamRecord[] = [];
  const ownReads = new Map<string, number>();
  const apis = discovery(gvrs, false);
  const api = discovery(gvrs, true);
  const openapiIndex = openApiV3Index(gvrs);
  const sockets = new Set<Socket>();

  const record = (req: IncomingMessage, upgrade: boolean): UpstreamRecord => {
    const r: UpstreamRecord = {
      server: name,
      method: req.method ?? '',
      url: req.url ?? '',
      httpVersion: req.httpVersion,
      rawHeaders: [...req.rawHeaders],
      fuzzId: header(req, FUZZ_ID_HEADER),
      upgrade,
      bodyBytes: 0,
      bodyHash: '',
      bodyComplete: false,
    };
    records.push(r);
    return r;
  };

  const server: Server = createServer({ maxHeaderSize: 256 * 1024 }, (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const own = req.headers['user-agent'] === 'peerscope' && req.headers[FUZZ_ID_HEADER] === undefined && OWN_READ_PATHS.has(path);
    if (own) {
      ownReads.set(path, (ownReads.get(path) ?? 0) + 1);
      req.resume();
      const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      if (path === '/apis') return json(apis);
      if (path === '/api') return json(api);
      if (path === '/openapi/v3') return json(openapiIndex);
      if (path === '/openapi/v2' && (req.headers.accept ?? '').includes('json')) return json(OPENAPI_V2);
      if (path === '/openapi/v2') return res.writeHead(406).end();
      if (path === '/version') return json(JSON.stringify({ gitVersion: `v1.37.0-fuzz-${name}` }));
      if (path.startsWith('/apis/')) return json('{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}');
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }
    const rec = record(req, false);
    const hash = createHash('sha256');
    req.on('data', (c: Buffer) => {
      rec.bodyBytes += c.length;
      hash.update(c);
    });
    req.on('end', () => {
      rec.bodyComplete = true;
      rec.bodyHash = hash.digest('hex');
      reply(req, res, (header(req, FUZZ_REPLY_HEADER) ?? 'json') as ReplyMode, rec);
    });
    req.on('error', () => undefined);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    record(req, true);
    socket.on('error', () => undefined);
    socket.end(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${header(req, 'upgrade') ?? 'websocket'}\r\nConnection: Upgrade\r\n${UPSTREAM_HEADER}: ${name}\r\n\r\n`,
    );
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  function reply(req: IncomingMessage, res: ServerResponse, mode: ReplyMode, rec: UpstreamRecord): void {
    const base: OutgoingHttpHeaders = { [UPSTREAM_HEADER]: name, [FUZZ_ID_HEADER]: rec.fuzzId ?? '' };
    const echo = JSON.stringify({ kind: 'Echo', server: name, method: rec.method, id: rec.fuzzId ?? null, bytes: rec.bodyBytes });
    switch (mode) {
      case 'chunked':
        res.writeHead(200, { ...base, 'content-type': 'application/json' });
        res.write(echo.slice(0, 5));
        res.write(echo.slice(5, 20));
        res.end(echo.slice(20));
        return;
      case 'no-content':
        res.writeHead(204, base).end();
        return;
      case 'not-found': {
        const body = JSON.stringify(notFound());
        res.writeHead(404, { ...base, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        return;
      }
      case 'hop-by-hop':
        // Chunked: Node allows a Trailer header only there.
        res
          .writeHead(200, {
            ...base,
            'content-type': 'application/json',
            connection: 'x-hop-secret',
            'keep-alive': 'timeout=99, max=7',
            'x-hop-secret': 'must not reach the client',
            'proxy-authenticate': 'Basic realm="upstream"',
            'proxy-connection': 'keep-alive',
            // Node refuses a Trailer header where there is no chunked body (HEAD, 204, 304).
            ...(req.method === 'HEAD' ? {} : { trailer: 'x-checksum' }),
          })
          .end(echo);
        return;
      case 'big': {
        const body = Buffer.alloc(BIG_BODY_BYTES, 0x61);
        res.writeHead(200, { ...base, 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
        return;
      }
      case 'slow':
        setTimeout(
          () => res.writeHead(200, { ...base, 'content-type': 'application/json', 'content-length': Buffer.byteLength(echo) }).end(echo),
          30,
        );
        return;
      case 'warnings':
        res.setHeader('warning', ['299 - "first"', '299 - "second"']);
        res.writeHead(200, { ...base, 'content-type': 'application/json', 'content-length': Buffer.byteLength(echo) }).end(echo);
        return;
      case 'reset':
        res.socket?.destroy();
        return;
      case 'garbage':
        res.socket?.end('SSH-2.0-OpenSSH_9.6 this is not HTTP\r\n\r\n');
        return;
      case 'cut-mid-body':
        res.writeHead(200, { ...base, 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"kind":"PodList","items":[');
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      default:
        res.writeHead(200, { ...base, 'content-type': 'application/json', 'content-length': Buffer.byteLength(echo) });
        res.end(req.method === 'HEAD' ? undefined : echo);
    }
  }

  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    ownReads,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
