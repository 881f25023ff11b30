// Real-socket fixtures for the upstream tests: an HTTPS apiserver stand-in with certificates from
// tls/certs.ts, a proxy listener that runs forward() or tunnel(), and a plain HTTP client that can
// send any header (undici refuses custom Connection values, which the hop-by-hop tests need).
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, beforeAll } from 'vitest';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
  type CertificateAuthority,
  type PemPair,
} from '../engine/tls/certs.js';
import { forward, type ForwardOptions, type ForwardResult } from '../engine/upstream/forward.js';
import type { Upstreams } from '../engine/upstream/pool.js';
import { tunnel, type TunnelOptions, type TunnelResult } from '../engine/upstream/tunnel.js';

export interface TlsMaterial {
  readonly ca: CertificateAuthority;
  /** Serving certificate for 127.0.0.1, localhost and kubernetes.default.svc. */
  readonly server: PemPair;
  /** A second CA that signed nothing the server presents. */
  readonly otherCa: CertificateAuthority;
  readonly client: PemPair;
}

/**
 * The fixtures an upstream test file shares: TLS material made once for the file (filled in before its
 * first test), and a list of cleanups run after each test, newest first.
 */
export function useUpstreamFixtures(): { readonly tls: TlsMaterial; readonly cleanups: Array<() => Promise<void>> } {
  const tls = {} as TlsMaterial;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    Object.assign(tls, await createTlsMaterial());
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return { tls, cleanups };
}

export async function createTlsMaterial(): Promise<TlsMaterial> {
  const ca = await createCertificateAuthority('upstream-test-ca');
  const otherCa = await createCertificateAuthority('unrelated-ca');
  const server = await issueServerCertificate(ca);
  const client = await issueClientCertificate(ca, { commonName: 'peerscope-proxy', organizations: ['system:masters'] });
  return { ca, server, otherCa, client };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server | TcpServer;
  close(): Promise<void>;
}

async function listen(server: Server | TcpServer, scheme: string): Promise<TestServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    server,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function startHttpsUpstream(
  tls: TlsMaterial,
  handler: Handler,
  options: { requireClientCert?: boolean; cert?: PemPair } = {},
): Promise<TestServer> {
  const cert = options.cert ?? tls.server;
  const server = createHttpsServer(
    {
      cert: cert.cert,
      key: cert.key,
      ...(options.requireClientCert ? { ca: tls.ca.cert, requestCert: true } : {}),
    },
    handler,
  );
  return listen(server, 'https');
}

export function startHttpUpstream(handler: Handler): Promise<TestServer> {
  return listen(createHttpServer(handler), 'http');
}

/** A TCP server that answers every connection with `onSocket` (garbage, silence, …). */
export function startTcpUpstream(onSocket: (socket: Socket) => void): Promise<TestServer> {
  return listen(createTcpServer(onSocket), 'http');
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TestProxy extends TestServer {
  /** Results of forward()/tunnel(), in completion order. */
  readonly results: Array<ForwardResult | TunnelResult>;
  /** Resolves with the next result to complete (or the oldest one not yet taken). */
  nextResult(): Promise<ForwardResult | TunnelResult>;
}

/** A proxy listener in front of `target`: every request is forwarded, every upgrade tunnelled. */
export async function startProxy(
  upstreams: Upstreams,
  target: string,
  options: { forward?: ForwardOptions; tunnel?: TunnelOptions } = {},
): Promise<TestProxy> {
  const results: Array<ForwardResult | TunnelResult> = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  const settle = (result: ForwardResult | TunnelResult) => {
    results.push(result);
    waiters.shift()?.();
  };
  const server = createHttpServer((req, res) => {
    void forward(upstreams, target, req, res, options.forward).then(settle);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void tunnel(upstreams, target, req, socket, head, options.tunnel).then(settle);
  });
  const base = await listen(server, 'http');
  return {
    ...base,
    results,
    nextResult: async () => {
      if (results.length <= taken) await new Promise<void>((resolve) => waiters.push(resolve));
      const result = results[taken++];
      if (!result) throw new Error('no result');
      return result;
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

/** One request with node:http (any header allowed); resolves with the whole answer. */
export function send(
  url: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: Buffer | string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Reads a whole request body (upstream side). */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Fails with `message` unless `promise` settles within `ms` (a hang guard, not a speed assertion). */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
