// forward() failures over real sockets: each maps to one PEERSCOPE_ERR_UPSTREAM_* code and a Status (or a
// clean cut after the headers); and the chunks of one event-loop turn reach the client as one write.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ForwardResult } from './forward.js';
import { Upstreams } from './pool.js';
import { serverLabel } from '../../contract/servers.js';
import { freePort, send, startProxy, startTcpUpstream, type TestProxy } from '../../test/upstream-fixtures.js';
import { UNAVAILABLE, statusOf, useForwardFixtures } from '../../test/forward-fixtures.js';

const { tls, cleanups, setUp, proxyTo } = useForwardFixtures();

describe('each failure has one code and a Status (or a clean cut after the headers)', () => {
  async function expect503(proxy: TestProxy, code: string, messagePart: RegExp) {
    const answer = await send(`${proxy.url}/api/v1/pods`);
    expect(answer.status).toBe(503);
    expect(answer.headers['x-peerscope-route']).toBe(UNAVAILABLE['x-peerscope-route']);
    const status = statusOf(answer.body);
    expect(status).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toMatch(/^Error while proxying request to destination apiserver: apiserver "a": /);
    expect(status.message).toMatch(messagePart);
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe(code);
    expect(result).toMatchObject({ status: 503, headersSent: false });
  }

  it('connection refused → PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED', async () => {
    const proxy = await proxyTo(`https://127.0.0.1:${await freePort()}`);
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED', /connection refused .*ECONNREFUSED/);
  });

  it('the Status names the server as the labels say: its host name, its identity beside it', async () => {
    const upstreams = new Upstreams([{ name: 'a', url: `https://127.0.0.1:${await freePort()}`, ca: tls.ca.cert }]);
    const labels = { label: (name: string) => serverLabel(name, 'cp-1') };
    const proxy = await startProxy(upstreams, 'a', { forward: { errorResponseHeaders: UNAVAILABLE, labels } });
    cleanups.push(
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    const answer = await send(`${proxy.url}/api/v1/pods`);
    expect(answer.status).toBe(503);
    expect(statusOf(answer.body).message).toMatch(
      /^Error while proxying request to destination apiserver: apiserver "cp-1" \(a\): connection refused/,
    );
  });

  it('a POST to a refused port still gets its Status', async () => {
    const proxy = await proxyTo(`https://127.0.0.1:${await freePort()}`);
    const answer = await send(`${proxy.url}/api/v1/namespaces/d/configmaps`, { method: 'POST', body: randomBytes(256 * 1024) });
    expect(answer.status).toBe(503);
    expect(statusOf(answer.body).reason).toBe('ServiceUnavailable');
  });

  it('a TLS handshake that never completes → PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT', async () => {
    const silent = await startTcpUpstream(() => undefined);
    cleanups.push(() => silent.close());
    const proxy = await proxyTo(`https://127.0.0.1:${silent.port}`, { connectTimeoutMs: 300 });
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_CONNECT_TIMEOUT', /connect timeout/);
  });

  it('no response headers in time → PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT', async () => {
    const { proxy } = await setUp(() => undefined, { headersTimeoutMs: 300, forward: { forward: { errorResponseHeaders: UNAVAILABLE } } });
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_HEADERS_TIMEOUT', /no response headers in time/);
  });

  it('the connection reset before a response → PEERSCOPE_ERR_UPSTREAM_RESET', async () => {
    const { proxy } = await setUp((req) => req.socket.destroy(), { forward: { forward: { errorResponseHeaders: UNAVAILABLE } } });
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_RESET', /closed before a response/);
  });

  it('a response that is not HTTP → PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE', async () => {
    const garbage = await startTcpUpstream((socket) => {
      socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    });
    cleanups.push(() => garbage.close());
    const proxy = await proxyTo(garbage.url);
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_BAD_RESPONSE', /malformed response \(HPE_/);
  });

  it('an upstream that dies mid-body → PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED, the client sees a truncated stream', async () => {
    const { proxy } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"kind":"PodList","items":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const outcome = await new Promise<{ status: number; body: string; aborted: boolean }>((resolve) => {
      const req = httpRequest(`${proxy.url}/api/v1/pods`, { agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('aborted', () => resolve({ status: res.statusCode ?? 0, body, aborted: true }));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, aborted: false }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body, aborted: true }));
      });
      req.on('error', () => undefined);
      req.end();
    });
    expect(outcome).toEqual({ status: 200, body: '{"kind":"PodList","items":[', aborted: true });
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_BODY_INTERRUPTED');
    expect(result).toMatchObject({ status: 200, headersSent: true, bytesOut: 27 });
  });

  it('an unknown server name → PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER', async () => {
    const upstreams = new Upstreams([]);
    const proxy = await startProxy(upstreams, 'a', { forward: { errorResponseHeaders: UNAVAILABLE } });
    cleanups.push(() => proxy.close());
    await expect503(proxy, 'PEERSCOPE_ERR_UPSTREAM_UNKNOWN_SERVER', /no apiserver is named "a"/);
  });

  it('writeErrors: false returns the failure without writing, for a caller that answers itself', async () => {
    const upstreams = new Upstreams([{ name: 'a', url: `http://127.0.0.1:${await freePort()}` }]);
    const proxy = await startProxy(upstreams, 'a', { forward: { writeErrors: false } });
    cleanups.push(
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    const pending = send(`${proxy.url}/version`).catch(() => undefined);
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result).toMatchObject({ status: 0, headersSent: false, error: { code: 'PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED' } });
    await proxy.close();
    await pending;
  });
});

describe('writes to the client', () => {
  it('sends the chunks that arrive in one turn of the event loop as one write, byte for byte', async () => {
    // 400 writes of 2 KB in one go: TLS hands them to the proxy a record at a time, each a callback
    // of its own; written one by one they cost one system call each on the client's socket.
    const parts = Array.from({ length: 400 }, (_, i) => randomBytes(2_048).fill(i % 251, 0, 1));
    const { proxy } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (const p of parts) res.write(p);
      res.end();
    });
    // What reaches the client's socket: one _write or _writev per system call. The upstream and the
    // client run in this process too; only the proxy's side of the client connection is counted.
    const proxyPort = Number(new URL(proxy.url).port);
    const { Socket } = await import('node:net');
    const { _write: write, _writev: writev } = Socket.prototype;
    let writes = 0;
    const counted = <F extends (...args: never[]) => unknown>(original: F) =>
      function (this: InstanceType<typeof Socket>, ...args: Parameters<F>) {
        if (this.localPort === proxyPort) writes++;
        return original.apply(this, args);
      };
    Socket.prototype._write = counted(write);
    if (writev) Socket.prototype._writev = counted(writev);
    try {
      const { status, body } = await send(`${proxy.url}/api/v1/pods`);
      expect(status).toBe(200);
      expect(createHash('sha256').update(body).digest('hex')).toBe(createHash('sha256').update(Buffer.concat(parts)).digest('hex'));
    } finally {
      Socket.prototype._write = write;
      Socket.prototype._writev = writev;
    }
    // 800 KB in pieces of at most 64 KB, one write per turn in which records arrived: 14–15 here.
    // Written as each record came, the same answer took ~50 (Node's stream batches some of them).
    expect(writes).toBeLessThan(30);
    expect(writes).toBeGreaterThan(0);
  });
});
