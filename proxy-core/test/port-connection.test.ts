// What the port answers on a connection outside a request handler, found by the port fuzz
// (fuzz-port.test.ts): pipelined answers stay in order, a refused connection lingers so its Status
// is read, CONNECT and unmet expectations get a Status, a 100 Continue never lands inside another
// response, and an upgrade queued behind a response neither stalls it nor crashes the process.
import { setMaxListeners } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { ResponseParser, headerValue, type ParsedResponse } from './fuzz/response-parser.js';
import { startFuzzUpstream, type FuzzUpstream } from './fuzz/upstream.js';

let upstream: FuzzUpstream;
let core: Core;
let port: number;

beforeAll(async () => {
  upstream = await startFuzzUpstream('a', [{ group: '', version: 'v1', resource: 'pods', namespaced: true }]);
  core = createCore({ servers: [{ name: 'a', url: upstream.url }], listen: { port: 0 } });
  port = (await core.start()).port;
});
afterAll(async () => {
  await core?.close(0);
  await upstream?.close();
});

interface Exchange {
  responses: ParsedResponse[];
  closed: boolean;
  error?: string;
}

/** Writes `bytes`, reads until the port closes (or `ms`), and cuts the answer into responses. */
function exchange(
  bytes: string | Buffer,
  expecting: { head?: boolean; upgrade?: boolean }[],
  ms = 3_000,
  afterWrite?: (s: ReturnType<typeof connect>) => void,
  readAfterMs = 0,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const parser = new ResponseParser();
    const responses: ParsedResponse[] = [];
    let closed = false;
    let error: string | undefined;
    let i = 0;
    const drain = () => {
      try {
        for (;;) {
          const e = expecting[Math.min(i, expecting.length - 1)] ?? {};
          const r = parser.next({ head: e.head ?? false, upgrade: e.upgrade ?? false });
          if (!r) return;
          responses.push(r);
          if (!r.interim) i++;
        }
      } catch (err) {
        error = (err as Error).message;
      }
    };
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses, closed, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (c: Buffer) => {
      parser.push(c);
      drain();
    });
    socket.on('end', () => {
      closed = true;
      parser.end();
      drain();
      done();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
      done();
    });
    socket.write(bytes);
    afterWrite?.(socket);
    if (readAfterMs) {
      socket.pause();
      setTimeout(() => socket.resume(), readAfterMs);
    }
  });
}

const host = () => `Host: localhost:${port}\r\n`;
const get = (path: string, reply = 'json') => `GET ${path} HTTP/1.1\r\n${host()}x-fuzz-reply: ${reply}\r\n\r\n`;
const statusOf = (r: ParsedResponse | undefined) =>
  JSON.parse(r?.body.toString() ?? '{}') as { kind?: string; code?: number; reason?: string };

describe('connection-level answers of the port', () => {
  it('answers pipelined requests in order before the 400 for a malformed one, then closes', async () => {
    const x = await exchange(`${get('/api/v1/pods', 'slow')}${get('/version')}HELLO garbage\r\n\r\n`, [{}, {}, {}]);
    expect(x.responses.map((r) => r.status)).toEqual([200, 200, 400]);
    expect(x.responses[0]?.body.toString()).toContain('"method":"GET"');
    expect(statusOf(x.responses[2])).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    expect(x.closed).toBe(true);
  });

  it('reads on after refusing a malformed head, so a client still uploading gets the Status, not a reset', async () => {
    const body = Buffer.alloc(4 * 1024 * 1024, 0x61);
    const x = await exchange(
      Buffer.concat([
        Buffer.from(`POST /api/v1/namespaces/d/pods HTTP/1.1\r\n${host()}X Bad: 1\r\nContent-Length: ${body.length}\r\n\r\n`),
        body,
      ]),
      [{}],
    );
    expect(x.error).toBeUndefined();
    expect(x.responses.map((r) => r.status)).toEqual([400]);
  });

  it('closes lingering: a slow reader gets every response before a close, although it sent more than the port read', async () => {
    // The 403 closes the connection (the client asked to) with 2 MiB of its body unread: closing at
    // once would reset the connection and destroy the big response still in the client's buffer.
    const refused = Buffer.concat([
      Buffer.from(
        `POST /api/v1/namespaces/d/pods HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
      ),
      Buffer.alloc(2 * 1024 * 1024, 0x62),
    ]);
    const x = await exchange(Buffer.concat([Buffer.from(get('/api/v1/pods', 'big')), refused]), [{}, {}], 5_000, undefined, 400);
    expect(x.error).toBeUndefined();
    expect(x.responses.map((r) => r.status)).toEqual([200, 403]);
    expect(x.responses[0]?.body.length).toBe(300 * 1024);
  });

  it('refuses CONNECT with a 405 Status', async () => {
    const x = await exchange(`CONNECT localhost:443 HTTP/1.1\r\n${host()}\r\n`, [{}]);
    expect(x.responses.map((r) => r.status)).toEqual([405]);
    expect(statusOf(x.responses[0])).toMatchObject({ kind: 'Status', code: 405, reason: 'MethodNotAllowed' });
    expect(headerValue(x.responses[0]!, 'x-peerscope-route')).toBe('handling=-; answering=-; outcome=rejected');
  });

  it('answers an expectation other than 100-continue with a 417 Status and keeps the connection', async () => {
    const x = await exchange(`GET /version HTTP/1.1\r\n${host()}Expect: foo\r\n\r\n${get('/version')}`, [{}, {}], 1_000);
    expect(x.responses.map((r) => r.status)).toEqual([417, 200]);
    expect(statusOf(x.responses[0])).toMatchObject({ kind: 'Status', code: 417 });
  });

  it('never writes a 100 Continue inside the response before it', async () => {
    const post = `POST /api/v1/namespaces/d/pods HTTP/1.1\r\n${host()}Expect: 100-continue\r\nContent-Length: 3\r\n\r\nabc`;
    const x = await exchange(`${get('/api/v1/pods', 'slow')}${post}${get('/version')}`, [{}, {}, {}], 1_500);
    const finals = x.responses.filter((r) => !r.interim);
    // The 100 comes after the first response or not at all (then the port closes after the POST's answer).
    expect(finals[0]?.status).toBe(200);
    expect(finals[0]?.body.toString()).toContain('"method":"GET"');
    expect(finals[1]?.status).toBe(200);
    expect(finals[1]?.body.toString()).toContain('"bytes":3');
  });

  it('lets a response finish before an upgrade queued behind it takes the connection', async () => {
    const upgrade = `GET /api/v1/namespaces/d/pods/p/exec HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`;
    const x = await exchange(`${get('/api/v1/pods', 'big')}${upgrade}`, [{}, { upgrade: true }]);
    expect(x.responses.map((r) => r.status)).toEqual([200, 101]);
    expect(x.responses[0]?.body.length).toBe(300 * 1024);
  });

  it('survives a client that resets while its upgrade waits behind a response', async () => {
    const upgrade = `GET /api/v1/namespaces/d/pods/p/exec HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`;
    for (let i = 0; i < 5; i++)
      await exchange(`${get('/api/v1/pods', 'big')}${upgrade}`, [{}, { upgrade: true }], 200, (s) =>
        setTimeout(() => s.resetAndDestroy(), 5),
      );
    const x = await exchange(`GET /version HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, [{}]);
    expect(x.responses.map((r) => r.status)).toEqual([200]);
  });
});

describe('many watches at once', () => {
  it("do not trip the listener-leak warning on the shutdown signal (every watch listens for the port's shutdown)", async () => {
    const { startFakeApiserver } = await import('./fake-apiserver.js');
    const fake = await startFakeApiserver(1);
    const watchCore = createCore({ servers: [{ name: 'fake', url: fake.url }], listen: { port: 0 } });
    const { url } = await watchCore.start();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    try {
      const { request } = await import('undici');
      const watches = await Promise.all(
        Array.from({ length: 16 }, () =>
          request(`${url}/apis/example.io/v1/namespaces/d/things?watch=true`, { signal: controller.signal }),
        ),
      );
      for (const w of watches) expect(w.statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    } finally {
      controller.abort();
      process.off('warning', onWarning);
      await watchCore.close(0);
      await fake.close();
    }
  });
});

describe('a client that leaves with answers still queued', () => {
  it("has every queued answer's upstream request aborted (it held its connection, and the port's shutdown, for ever)", async () => {
    const up = await startFuzzUpstream('q', [{ group: '', version: 'v1', resource: 'pods', namespaced: true }]);
    const c = createCore({ servers: [{ name: 'q', url: up.url }], listen: { port: 0 } });
    const p = (await c.start()).port;
    let closing: Promise<string> | undefined;
    try {
      const socket = connect(p, '127.0.0.1');
      socket.on('error', () => undefined);
      const h = `Host: localhost:${p}\r\n`;
      // The big answer is queued behind the slow one and pauses its upstream read; then the client goes.
      socket.write(`GET /api/v1/pods HTTP/1.1\r\n${h}x-fuzz-reply: slow\r\n\r\nGET /api/v1/pods HTTP/1.1\r\n${h}x-fuzz-reply: big\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 10));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      closing = c.close(500).then(() => 'closed');
      expect(await Promise.race([closing, new Promise((r) => setTimeout(() => r('still open after 3 s'), 3_000))])).toBe('closed');
    } finally {
      await up.close();
      await Promise.race([closing ?? c.close(0), new Promise((r) => setTimeout(r, 3_000))]);
    }
  });
});
