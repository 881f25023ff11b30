// forward() over real sockets: an HTTPS upstream verified against its CA, byte-exact bodies and
// watches, streaming, client aborts, every failure mapped to one code and a Status, back-pressure.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Status } from '../util/status.js';
import type { ForwardResult } from './forward.js';
import { Upstreams } from './pool.js';
import {
  freePort,
  readBody,
  send,
  startHttpsUpstream,
  startHttpUpstream,
  startProxy,
  startTcpUpstream,
  within,
  type Handler,
  type TestProxy,
  type TestServer,
  useUpstreamFixtures,
} from '../../test/upstream-fixtures.js';

const ROUTE = { 'x-peerscope-route': 'handling=a; answering=a; outcome=local' };
const UNAVAILABLE = { 'x-peerscope-route': 'handling=a; answering=-; outcome=unavailable' };

function watchEvents(count: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(
      JSON.stringify({
        type: 'ADDED',
        object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${i}`, resourceVersion: String(i + 1) } },
      }) + '\n',
    );
  return Buffer.from(lines.join(''));
}

function statusOf(body: Buffer): Status {
  return JSON.parse(body.toString('utf8')) as Status;
}

const { tls, cleanups } = useUpstreamFixtures();

/** An HTTPS upstream named "a" behind a proxy; returns the proxy and the upstream. */
async function setUp(
  handler: Handler,
  options: { ca?: string; servername?: string; token?: string; headersTimeoutMs?: number; forward?: Parameters<typeof startProxy>[2] } = {},
) {
  const upstream = await startHttpsUpstream(tls, handler);
  const upstreams = new Upstreams(
    [
      {
        name: 'a',
        url: upstream.url,
        ca: options.ca ?? tls.ca.cert,
        ...(options.servername ? { servername: options.servername } : {}),
        ...(options.token ? { bearerToken: () => options.token } : {}),
      },
    ],
    options.headersTimeoutMs ? { headersTimeoutMs: options.headersTimeoutMs } : {},
  );
  const proxy = await startProxy(
    upstreams,
    'a',
    options.forward ?? { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } },
  );
  cleanups.push(
    () => upstream.close(),
    () => upstreams.destroy(),
    () => proxy.close(),
  );
  return { upstream, upstreams, proxy };
}

/** A proxy in front of an arbitrary URL (refused ports, raw TCP servers). */
async function proxyTo(url: string, options: { connectTimeoutMs?: number; headersTimeoutMs?: number } = {}) {
  const upstreams = new Upstreams([{ name: 'a', url, ca: tls.ca.cert }], options);
  const proxy = await startProxy(upstreams, 'a', { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } });
  cleanups.push(
    () => upstreams.destroy(),
    () => proxy.close(),
  );
  return proxy;
}

describe('forward over HTTPS', () => {
  it('relays a GET verified against the CA, with end-to-end headers, Warning, and without hop-by-hop headers', async () => {
    let seen: IncomingHttpHeaders = {};
    const { proxy } = await setUp(
      (req, res) => {
        seen = req.headers;
        res.setHeader('content-type', 'application/json');
        res.setHeader('warning', ['299 - "first deprecated"', '299 - "second deprecated"']);
        res.setHeader('connection', 'x-upstream-hop');
        res.setHeader('x-upstream-hop', 'must not reach the client');
        res.setHeader('keep-alive', 'timeout=99');
        res.setHeader('audit-id', 'abc');
        res.end('{"kind":"ConfigMap"}');
      },
      { token: 'core-token', forward: { forward: { responseHeaders: ROUTE, addRequestHeaders: { 'x-kubernetes-peer-proxied': 'true' } } } },
    );

    const answer = await send(`${proxy.url}/api/v1/namespaces/d/configmaps/x?resourceVersion=0`, {
      headers: {
        connection: 'keep-alive, x-client-hop',
        'x-client-hop': 'must not reach the upstream',
        'proxy-authorization': 'Basic c2VjcmV0',
        te: 'trailers',
        'keep-alive': 'timeout=5',
        accept: 'application/json',
        'impersonate-user': 'jane',
      },
    });

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"kind":"ConfigMap"}');
    const warnings = answer.rawHeaders.filter((_, i) => i % 2 === 0 && answer.rawHeaders[i]?.toLowerCase() === 'warning').length;
    expect(warnings).toBe(2);
    expect(answer.headers.warning).toBe('299 - "first deprecated", 299 - "second deprecated"');
    expect(answer.headers['audit-id']).toBe('abc');
    expect(answer.headers['x-peerscope-route']).toBe(ROUTE['x-peerscope-route']);
    expect(answer.headers['x-upstream-hop']).toBeUndefined();
    // The proxy's listener announces its own keep-alive; the upstream's is not relayed.
    expect(answer.headers['keep-alive']).not.toContain('timeout=99');

    expect(seen['x-client-hop']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['keep-alive']).toBeUndefined();
    expect(seen.accept).toBe('application/json');
    expect(seen['impersonate-user']).toBe('jane');
    expect(seen['x-kubernetes-peer-proxied']).toBe('true');
    expect(seen.authorization).toBe('Bearer core-token');
    // The response header is for the client only (spec P3).
    expect(seen['x-peerscope-route']).toBeUndefined();
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result).toMatchObject({ status: 200, headersSent: true, bytesOut: 20 });
    expect(result.error).toBeUndefined();
  });

  it("keeps the client's own Authorization instead of adding the server token", async () => {
    let seen: IncomingHttpHeaders = {};
    const { proxy } = await setUp(
      (req, res) => {
        seen = req.headers;
        res.end('ok');
      },
      { token: 'core-token' },
    );
    await send(`${proxy.url}/version`, { headers: { authorization: 'Bearer client-token' } });
    expect(seen.authorization).toBe('Bearer client-token');
  });

  it("a 401 to the core's own token asks its source for a fresh one (exec plugin, token file); a client's own 401 does not", async () => {
    const upstream = await startHttpsUpstream(tls, (req, res) => {
      res.statusCode = req.headers.authorization === 'Bearer fresh' ? 200 : 401;
      res.end();
    });
    let token = 'revoked';
    let refreshed = 0;
    const upstreams = new Upstreams([
      {
        name: 'a',
        url: upstream.url,
        ca: tls.ca.cert,
        bearerToken: () => token,
        onUnauthorized: () => {
          refreshed++;
          token = 'fresh';
        },
      },
    ]);
    const proxy = await startProxy(upstreams, 'a', { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } });
    cleanups.push(
      () => upstream.close(),
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    expect((await send(`${proxy.url}/api`, { headers: { authorization: 'Bearer clients-own' } })).status).toBe(401);
    expect(refreshed).toBe(0);
    expect((await send(`${proxy.url}/api`)).status).toBe(401);
    expect(refreshed).toBe(1);
    expect((await send(`${proxy.url}/api`)).status).toBe(200);
    expect(refreshed).toBe(1);
  });

  it('answers 503 with a PEERSCOPE_ERR_UPSTREAM_TLS cause naming the certificate problem when the CA is wrong', async () => {
    let reached = false;
    const { proxy } = await setUp(
      () => {
        reached = true;
      },
      { ca: tls.otherCa.cert },
    );
    const answer = await send(`${proxy.url}/api/v1/pods`);
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-peerscope-route']).toBe(UNAVAILABLE['x-peerscope-route']);
    const status = statusOf(answer.body);
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toMatch(
      /^Error while proxying request to destination apiserver: apiserver "a": TLS handshake failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
    );
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_TLS');
    expect(result).toMatchObject({ status: 503, headersSent: false });
    expect(reached).toBe(false);
  });

  it('refuses a certificate that does not name the server (servername checked, never skipped)', async () => {
    const { proxy } = await setUp((_req, res) => res.end('ok'), { servername: 'not-the-server.example' });
    const answer = await send(`${proxy.url}/version`);
    expect(answer.status).toBe(503);
    expect(statusOf(answer.body).message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(((await proxy.nextResult()) as ForwardResult).error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_TLS');
  });
});

describe('bodies are streamed byte-exact', () => {
  it('a 2 MiB request body arrives byte-identical', async () => {
    const body = randomBytes(2 * 1024 * 1024);
    let hash = '';
    let length = '';
    const { proxy } = await setUp((req, res) => {
      length = req.headers['content-length'] ?? '';
      void readBody(req).then((received) => {
        hash = createHash('sha256').update(received).digest('hex');
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const answer = await send(`${proxy.url}/api/v1/namespaces/d/configmaps`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    });
    expect(answer.status).toBe(201);
    expect(hash).toBe(createHash('sha256').update(body).digest('hex'));
    expect(length).toBe(String(body.length));
    expect(((await proxy.nextResult()) as ForwardResult).bytesIn).toBe(body.length);
  });

  it('a chunked request body arrives byte-identical', async () => {
    const parts = [randomBytes(100_000), randomBytes(1), randomBytes(70_000)];
    let received: Buffer = Buffer.alloc(0);
    const { proxy } = await setUp((req, res) => {
      void readBody(req).then((b) => {
        received = b;
        res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/api/v1/namespaces/d/configmaps`, { method: 'POST', agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      for (const p of parts) req.write(p);
      req.end();
    });
    expect(received.equals(Buffer.concat(parts))).toBe(true);
  });

  it('a 10,000-event watch arrives byte-identical to what the upstream wrote', async () => {
    const events = watchEvents(10_000);
    const { proxy } = await setUp(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        // Many small writes, as a watch flushes event by event.
        let offset = 0;
        const step = () => {
          while (offset < events.length) {
            const next = events.indexOf(0x0a, offset) + 1;
            const ok = res.write(events.subarray(offset, next));
            offset = next;
            if (!ok) return void res.once('drain', step);
          }
          res.end();
        };
        step();
      },
      { forward: { forward: { watch: true, responseHeaders: ROUTE } } },
    );
    const answer = await send(`${proxy.url}/api/v1/configmaps?watch=true`);
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(events.length);
    expect(answer.body.equals(events)).toBe(true);
    expect(((await proxy.nextResult()) as ForwardResult).bytesOut).toBe(events.length);
  });
});

describe('streaming, aborts and shutdown', () => {
  it('a watch event reaches the client before the upstream ends the stream', async () => {
    let endWatch: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (endWatch = resolve));
    const { proxy } = await setUp(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{"kind":"Pod"}}\n');
        void ended.then(() => res.end('{"type":"DELETED","object":{"kind":"Pod"}}\n'));
      },
      { forward: { forward: { watch: true } } },
    );

    const firstChunk = new Promise<{ first: string; rest: Promise<string> }>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/api/v1/pods?watch=true`, { agent: false }, (res) => {
        let all = '';
        const rest = new Promise<string>((done) => res.on('end', () => done(all)));
        res.once('data', (c: Buffer) => resolve({ first: c.toString(), rest }));
        res.on('data', (c: Buffer) => (all += c.toString()));
      });
      req.on('error', reject);
      req.end();
    });
    // The upstream has not ended: only streaming lets the first event through.
    const { first, rest } = await within(firstChunk, 10_000, 'the first event did not arrive while the stream was open');
    expect(first).toBe('{"type":"ADDED","object":{"kind":"Pod"}}\n');
    endWatch();
    expect(await rest).toBe('{"type":"ADDED","object":{"kind":"Pod"}}\n{"type":"DELETED","object":{"kind":"Pod"}}\n');
  });

  it('a client that disconnects mid-stream aborts the upstream request', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const { proxy } = await setUp(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED"}\n');
        res.on('close', () => upstreamClosed());
      },
      { forward: { forward: { watch: true } } },
    );
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${proxy.url}/api/v1/pods?watch=true`, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      // Destroying the request after its response emits an error; that is the point here.
      req.on('error', () => undefined);
      req.end();
    });
    await within(closed, 10_000, 'the upstream request stayed open after the client left');
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe('PEERSCOPE_ERR_CLIENT_ABORTED');
    expect(result.headersSent).toBe(true);
  });

  it('a shutdown ends a watch cleanly: the client sees the end of the stream, not an error', async () => {
    const shutdown = new AbortController();
    const { proxy } = await setUp(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED"}\n');
      },
      { forward: { forward: { watch: true, shutdown: shutdown.signal } } },
    );
    const answer = new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/api/v1/pods?watch=true`, { agent: false }, (res) => {
        let all = '';
        res.on('data', (c: Buffer) => {
          all += c.toString();
          shutdown.abort();
        });
        res.on('end', () => resolve(all));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(await within(answer, 10_000, 'the watch did not end at shutdown')).toBe('{"type":"ADDED"}\n');
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error).toBeUndefined();
  });
});

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

describe('back-pressure', () => {
  let upstream: TestServer;
  let upstreams: Upstreams;
  let written = 0;
  let waitingForDrain = false;
  let upstreamClosed: Promise<void>;
  const TOTAL = 512 * 1024 * 1024;
  const CHUNK = Buffer.alloc(64 * 1024, 0x61);

  beforeAll(async () => {
    let onClosed: () => void = () => undefined;
    upstreamClosed = new Promise<void>((resolve) => (onClosed = resolve));
    // Plain HTTP keeps this test about buffering, not encryption cost.
    upstream = await startHttpUpstream((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(TOTAL) });
      res.on('close', () => onClosed());
      const pump = () => {
        while (written < TOTAL && !res.destroyed) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) {
            waitingForDrain = true;
            return void res.once('drain', () => {
              waitingForDrain = false;
              pump();
            });
          }
        }
        res.end();
      };
      pump();
    });
    upstreams = new Upstreams([{ name: 'a', url: upstream.url }]);
  });
  afterAll(async () => {
    await upstreams?.destroy();
    await upstream?.close();
  });

  it('a client that never reads stalls the upstream within bounded bytes', async () => {
    const proxy = await startProxy(upstreams, 'a');
    cleanups.push(() => proxy.close());
    const client = connect(proxy.port, '127.0.0.1');
    await once(client, 'connect');
    client.pause();
    client.write('GET /api/v1/pods HTTP/1.1\r\nHost: localhost\r\n\r\n');

    // Wait until the upstream sits on a full socket and makes no progress for a while.
    let last = -1;
    for (let i = 0; i < 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (waitingForDrain && written === last) break;
      last = written;
    }
    expect(waitingForDrain).toBe(true);
    // Only socket buffers (kernel and stream high-water marks) hold bytes; nothing grows in the proxy.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(written).toBeLessThan(TOTAL);

    client.destroy();
    await within(upstreamClosed, 10_000, 'the upstream response stayed open after the client left');
    expect((await proxy.nextResult()).error?.code).toBe('PEERSCOPE_ERR_CLIENT_ABORTED');
  });
});
