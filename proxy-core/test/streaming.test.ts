// Byte-exactness and bad input on the port: a 10,000-event watch and a 2 MiB body arrive
// byte-identical; malformed requests get a Status or a clean close; the port keeps serving.
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { startFakeApiserver, watchBytes, type FakeApiserver } from './fake-apiserver.js';

describe('streams through the port are byte-exact', () => {
  let fake: FakeApiserver;
  let core: Core;
  let url: string;
  beforeAll(async () => {
    fake = await startFakeApiserver(10_000);
    core = createCore({ servers: [{ name: 'fake', url: fake.url }], listen: { port: 0 } });
    url = (await core.start()).url;
  });
  afterAll(async () => {
    await core?.close(0);
    await fake?.close();
  });

  it('a watch of 10,000 events arrives byte-identical to direct, with its Warning header', async () => {
    const direct = await request(`${fake.url}/apis/example.io/v1/things?watch=true`);
    const directBytes = Buffer.from(await direct.body.arrayBuffer());
    const proxied = await request(`${url}/apis/example.io/v1/things?watch=true`);
    const proxiedBytes = Buffer.from(await proxied.body.arrayBuffer());
    expect(directBytes.equals(watchBytes(10_000))).toBe(true);
    expect(proxiedBytes.length).toBe(directBytes.length);
    expect(proxiedBytes.equals(directBytes)).toBe(true);
    expect(proxied.headers.warning).toBe('299 - "fake warning"');
    expect(proxied.headers['x-peerscope-route']).toBe('handling=fake; answering=fake; outcome=local');
  });

  it('a request body of 2 MiB arrives byte-identical', async () => {
    const body = randomBytes(2 * 1024 * 1024);
    const res = await request(`${url}/apis/example.io/v1/namespaces/d/things`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(201);
    await res.body.text();
    expect(fake.bodyHashes.at(-1)).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('a client that disconnects mid-stream aborts the upstream request, and the port keeps serving', async () => {
    const controller = new AbortController();
    const res = await request(`${url}/apis/example.io/v1/namespaces/d/things/slow`, { signal: controller.signal });
    for await (const _chunk of res.body) break;
    controller.abort();
    await fake.clientGone();
    const after = await request(`${url}/version`);
    expect(after.statusCode).toBe(200);
    await after.body.text();
  });
});

describe('bad input gets a Status or a clean close, and the port keeps serving', () => {
  let fake: FakeApiserver;
  let core: Core;
  let port: number;
  beforeAll(async () => {
    fake = await startFakeApiserver(10);
    core = createCore({ servers: [{ name: 'fake', url: fake.url }], listen: { port: 0 } });
    port = (await core.start()).port;
  });
  afterAll(async () => {
    await core?.close(0);
    await fake?.close();
  });

  async function raw(text: string): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    socket.write(text);
    let out = '';
    socket.on('data', (c) => (out += c.toString('latin1')));
    await new Promise<void>((resolve) => {
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      setTimeout(() => socket.end(), 500);
    });
    return out;
  }

  function statusOf(response: string): { code: number; body: Record<string, unknown> } {
    const [head = '', body = ''] = response.split('\r\n\r\n');
    return {
      code: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
      body: body ? (JSON.parse(body.split('\r\n').find((l) => l.startsWith('{')) ?? body) as Record<string, unknown>) : {},
    };
  }

  it('a request target that is not a path gets a 400 Status', async () => {
    const s = statusOf(await raw('GET http://evil.example/api/v1/pods HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    expect(s.code).toBe(400);
    expect(s.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  it('a garbage request line gets a 400 Status', async () => {
    const s = statusOf(await raw('HELLO\r\n\r\n'));
    expect(s.code).toBe(400);
    expect(s.body).toMatchObject({ kind: 'Status', code: 400 });
  });

  it('oversized headers get a 431 Status', async () => {
    const s = statusOf(await raw(`GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`));
    expect(s.code).toBe(431);
    expect(s.body).toMatchObject({ kind: 'Status', code: 431 });
  });

  it('an unknown method gets a 400 Status (the HTTP parser refuses it before routing)', async () => {
    const s = statusOf(await raw(`BREW /api/v1/pods HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    expect(s.code).toBe(400);
    expect(s.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  it('a wrong Host gets 403 and nothing reaches the apiserver', async () => {
    const s = statusOf(await raw('GET /apis/example.io/v1/things HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n'));
    expect(s.code).toBe(403);
    expect(s.body).toMatchObject({ reason: 'Forbidden', message: 'Host header "attacker.example" is not allowed' });
  });

  it('percent-encoded and dot-segment paths are classified, not crashed on', async () => {
    for (const path of ['/apis/example.io/v1/../v1/things', '/api/v1/namespaces/%2e%2e/pods', '/apis/%E2%98%83/v1/x', '//api//v1//pods']) {
      const res = await request(`http://127.0.0.1:${port}${path}`);
      expect(res.statusCode, path).toBeLessThan(500);
      await res.body.text();
    }
  });

  it('after all that, the port still serves', async () => {
    const res = await request(`http://127.0.0.1:${port}/version`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ gitVersion: 'v1.37.0-fake' });
  });
});

describe('shutting the port down', () => {
  it('ends open watches cleanly at once, and closes', async () => {
    const fake = await startFakeApiserver(10);
    const core = createCore({ servers: [{ name: 'fake', url: fake.url }], listen: { port: 0 } });
    const { url } = await core.start();
    try {
      const res = await request(`${url}/apis/example.io/v1/namespaces/d/things?watch=true`);
      const reading = (async () => {
        let chunks = 0;
        for await (const _c of res.body) chunks++;
        return chunks;
      })();
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await core.close(10_000);
      expect(Date.now() - started).toBeLessThan(2_000); // not the 10 s grace: the watch ended itself
      expect(await reading).toBeGreaterThan(0); // the stream ended without an error
    } finally {
      await fake.close();
    }
  });
});
