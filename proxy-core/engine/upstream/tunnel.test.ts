// tunnel() over real sockets: a TLS upstream that answers 101 and echoes, answers other than 101,
// and failures before the answer written as a Status on the raw socket.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Status } from '../util/status.js';
import { Upstreams } from './pool.js';
import {
  freePort,
  startHttpsUpstream,
  startProxy,
  within,
  type TestProxy,
  type TestServer,
  useUpstreamFixtures,
} from '../../test/upstream-fixtures.js';
import type { TunnelResult } from './tunnel.js';

const ROUTE = { 'x-peerscope-route': 'handling=a; answering=b; outcome=rerouted' };
const UNAVAILABLE = { 'x-peerscope-route': 'handling=a; answering=-; outcome=unavailable' };
const EXEC_HEAD = [
  'POST /api/v1/namespaces/d/pods/p/exec?command=sh&stdin=true&stdout=true HTTP/1.1',
  'Host: localhost',
  'Connection: Upgrade',
  'Upgrade: SPDY/3.1',
  'X-Stream-Protocol-Version: v4.channel.k8s.io',
  '',
  '',
].join('\r\n');

const { tls, cleanups } = useUpstreamFixtures();

/** Reads from a raw socket until the response head is complete; returns it and what followed. */
async function readHead(socket: Socket): Promise<{ head: string; rest: Buffer }> {
  let buffered = Buffer.alloc(0);
  return within(
    new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.pause();
        resolve({ head: buffered.subarray(0, end).toString('latin1'), rest: buffered.subarray(end + 4) });
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.once('close', () => reject(new Error(`closed before a response head: ${buffered.toString('latin1')}`)));
    }),
    10_000,
    'no response head',
  );
}

async function readExactly(socket: Socket, length: number, already: Buffer): Promise<Buffer> {
  let buffered = already;
  if (buffered.length >= length) return buffered;
  return within(
    new Promise((resolve) => {
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length < length) return;
        socket.off('data', onData);
        resolve(buffered);
      };
      socket.on('data', onData);
      socket.resume();
    }),
    10_000,
    `fewer than ${length} bytes arrived`,
  );
}

async function readToClose(socket: Socket, already: Buffer): Promise<Buffer> {
  const chunks = [already];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.resume();
  await within(once(socket, 'close'), 10_000, 'the socket stayed open');
  return Buffer.concat(chunks);
}

function headerOf(head: string, name: string): string | undefined {
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

async function proxyFor(url: string, ca = tls.ca.cert, serverDown?: AbortSignal): Promise<TestProxy> {
  const upstreams = new Upstreams([{ name: 'b', url, ca, bearerToken: () => 'core-token' }]);
  const proxy = await startProxy(upstreams, 'b', {
    tunnel: {
      addRequestHeaders: { 'x-kubernetes-peer-proxied': 'true' },
      responseHeaders: ROUTE,
      errorResponseHeaders: UNAVAILABLE,
      ...(serverDown ? { serverDown } : {}),
    },
  });
  cleanups.push(
    () => upstreams.destroy(),
    () => proxy.close(),
  );
  return proxy;
}

async function openClient(proxy: TestProxy, text: string | Buffer): Promise<Socket> {
  const socket = connect(proxy.port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(text);
  return socket;
}

/** An HTTPS upstream that answers upgrades with 101 and then echoes every byte. */
async function echoUpstream(seen: { headers?: IncomingHttpHeaders; closed?: Promise<void> } = {}): Promise<TestServer> {
  const server = await startHttpsUpstream(tls, (_req, res) => res.writeHead(400).end());
  server.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    seen.headers = req.headers;
    socket.on('error', () => undefined); // a client's leaving may reach this side as a reset
    seen.closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n',
    );
    if (head.length) socket.write(head);
    socket.pipe(socket);
  });
  cleanups.push(() => server.close());
  return server;
}

describe('tunnel', () => {
  it('carries bytes both ways through a 101 from a verified TLS upstream', async () => {
    const seen: { headers?: IncomingHttpHeaders; closed?: Promise<void> } = {};
    const upstream = await echoUpstream(seen);
    const proxy = await proxyFor(upstream.url);
    const early = Buffer.from('early bytes in the same packet as the head');
    const client = await openClient(proxy, Buffer.concat([Buffer.from(EXEC_HEAD), early]));
    const { head, rest } = await readHead(client);

    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    expect(headerOf(head, 'upgrade')).toBe('SPDY/3.1');
    expect(headerOf(head, 'connection')).toBe('Upgrade');
    expect(headerOf(head, 'x-stream-protocol-version')).toBe('v4.channel.k8s.io');
    expect(headerOf(head, 'x-peerscope-route')).toBe(ROUTE['x-peerscope-route']);
    expect(seen.headers?.upgrade).toBe('SPDY/3.1');
    expect(seen.headers?.['x-stream-protocol-version']).toBe('v4.channel.k8s.io');
    expect(seen.headers?.['x-kubernetes-peer-proxied']).toBe('true');
    expect(seen.headers?.authorization).toBe('Bearer core-token');

    const payload = randomBytes(1024 * 1024);
    client.write(payload);
    const echoed = await readExactly(client, early.length + payload.length, rest);
    expect(echoed.equals(Buffer.concat([early, payload]))).toBe(true);

    client.end();
    await within(seen.closed ?? Promise.reject(new Error('no upstream socket')), 10_000, 'the upstream side stayed open');
    const result = (await proxy.nextResult()) as TunnelResult;
    expect(result).toMatchObject({ status: 101, bytesIn: early.length + payload.length, bytesOut: early.length + payload.length });
    expect(result.error).toBeUndefined();
  });

  it('the upstream closing ends the client side too', async () => {
    const upstream = await startHttpsUpstream(tls, (_req, res) => res.end());
    upstream.server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nbye');
    });
    cleanups.push(() => upstream.close());
    const proxy = await proxyFor(upstream.url);
    const client = await openClient(
      proxy,
      'GET /api/v1/namespaces/d/pods/p/attach HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const { head, rest } = await readHead(client);
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    expect(headerOf(head, 'upgrade')).toBe('websocket');
    expect((await readToClose(client, rest)).toString()).toBe('bye');
    const result = (await proxy.nextResult()) as TunnelResult;
    expect(result).toMatchObject({ status: 101, bytesOut: 3 });
  });

  it('relays an answer other than 101 (a 404 Status) and closes', async () => {
    const notFound = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "p" not found',
      reason: 'NotFound',
      code: 404,
    });
    // No 'upgrade' listener: Node serves the request as an ordinary one.
    const upstream = await startHttpsUpstream(tls, (_req, res) =>
      res.writeHead(404, { 'content-type': 'application/json', warning: '299 - "kept"' }).end(notFound),
    );
    cleanups.push(() => upstream.close());
    const proxy = await proxyFor(upstream.url);
    const client = await openClient(proxy, EXEC_HEAD);
    const { head, rest } = await readHead(client);
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
    expect(headerOf(head, 'x-peerscope-route')).toBe(ROUTE['x-peerscope-route']);
    expect(headerOf(head, 'warning')).toBe('299 - "kept"');
    expect(headerOf(head, 'connection')).toBe('close');
    expect((await readToClose(client, rest)).toString()).toBe(notFound);
    const result = (await proxy.nextResult()) as TunnelResult;
    expect(result).toMatchObject({ status: 404, bytesOut: notFound.length });
  });

  it('an open tunnel whose server is found unreachable is ended: the client side closes after what the server sent', async () => {
    const seen: { headers?: IncomingHttpHeaders; closed?: Promise<void> } = {};
    const upstream = await echoUpstream(seen);
    const serverDown = new AbortController();
    const proxy = await proxyFor(upstream.url, tls.ca.cert, serverDown.signal);
    const client = await openClient(proxy, EXEC_HEAD);
    const { head, rest } = await readHead(client);
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    client.write('ping');
    const echoed = await readExactly(client, 4, rest);
    expect(echoed.toString()).toBe('ping');
    // The upstream still holds the connection open: only the signal ends the tunnel.
    serverDown.abort(new Error('connect timeout'));
    expect((await readToClose(client, Buffer.alloc(0))).length).toBe(0);
    await within(seen.closed ?? Promise.reject(new Error('no upstream socket')), 10_000, 'the upstream side stayed open');
    const result = (await proxy.nextResult()) as TunnelResult;
    expect(result).toMatchObject({ status: 101, bytesIn: 4, bytesOut: 4 });
    expect(result.error).toEqual({
      code: 'PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN',
      message: "found unreachable by the port's health probe (connect timeout)",
    });
  });

  it('an upgrade waiting for its 101 when its server is found unreachable gets a 503 Status naming the server and why', async () => {
    const serverDown = new AbortController();
    const upstream = await startHttpsUpstream(tls, (_req, res) => res.end());
    upstream.server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => undefined);
      // Never an answer, as from a silent link; the port's probe finds the server unreachable meanwhile.
      serverDown.abort(new Error('connect timeout'));
    });
    cleanups.push(() => upstream.close());
    await expectStatus503(
      await proxyFor(upstream.url, tls.ca.cert, serverDown.signal),
      'PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN',
      /found unreachable by the port's health probe \(connect timeout\)/,
    );
  });

  it('an upgrade to a server already found unreachable gets the 503 Status at once', async () => {
    const serverDown = new AbortController();
    serverDown.abort(new Error('connect timeout'));
    // The signal a request gets is the one of its time: an aborted one only if the verdict came meanwhile.
    const upstream = await echoUpstream();
    await expectStatus503(
      await proxyFor(upstream.url, tls.ca.cert, serverDown.signal),
      'PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN',
      /found unreachable/,
    );
  });

  async function expectStatus503(proxy: TestProxy, code: string, messagePart: RegExp) {
    const client = await openClient(proxy, EXEC_HEAD);
    const { head, rest } = await readHead(client);
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(headerOf(head, 'content-type')).toBe('application/json');
    expect(headerOf(head, 'x-peerscope-route')).toBe(UNAVAILABLE['x-peerscope-route']);
    const body = await readToClose(client, rest);
    expect(Number(headerOf(head, 'content-length'))).toBe(body.length);
    const status = JSON.parse(body.toString()) as Status;
    expect(status).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toMatch(/^Error while proxying request to destination apiserver: apiserver "b": /);
    expect(status.message).toMatch(messagePart);
    const result = (await proxy.nextResult()) as TunnelResult;
    expect(result.status).toBe(503);
    expect(result.error?.code).toBe(code);
  }

  it('a refused connection becomes a 503 Status on the raw socket', async () => {
    await expectStatus503(
      await proxyFor(`https://127.0.0.1:${await freePort()}`),
      'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED',
      /ECONNREFUSED/,
    );
  });

  it('a certificate that does not verify becomes a 503 Status naming the problem', async () => {
    const upstream = await echoUpstream();
    await expectStatus503(await proxyFor(upstream.url, tls.otherCa.cert), 'PEERSCOPE_ERR_UPSTREAM_TLS', /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  it('an unknown server becomes a 503 Status', async () => {
    const upstreams = new Upstreams([]);
    const proxy = await startProxy(upstreams, 'b', { tunnel: { errorResponseHeaders: UNAVAILABLE } });
    cleanups.push(() => proxy.close());
    await expectStatus503(proxy, 'PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER', /no apiserver is named "b"/);
  });

  it('a client that leaves before the 101 aborts the upstream request', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let reached: () => void = () => undefined;
    const reachedUpstream = new Promise<void>((resolve) => (reached = resolve));
    const upstream = await startHttpsUpstream(tls, (_req, res) => res.end());
    upstream.server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      // The port's abort may reach this side as a reset (it does on Node 22): expected, not a failure.
      socket.on('error', () => undefined);
      socket.once('close', () => upstreamClosed());
      reached();
    });
    cleanups.push(() => upstream.close());
    const proxy = await proxyFor(upstream.url);
    const client = await openClient(proxy, EXEC_HEAD);
    await within(reachedUpstream, 10_000, 'the upgrade never reached the upstream');
    client.destroy();
    await within(closed, 10_000, 'the upstream connection stayed open after the client left');
    expect(((await proxy.nextResult()) as TunnelResult).error?.code).toBe('PEERSCOPE_ERR_CLIENT_ABORTED');
  });
});
