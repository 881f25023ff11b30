// forward() streams: byte-exact request bodies and watches, events before the stream ends, client aborts
// passed upstream, and a shutdown or a server found unreachable that ends a watch cleanly.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ForwardResult } from './forward.js';
import { readBody, send, within } from '../../test/upstream-fixtures.js';
import { ROUTE, watchEvents, useForwardFixtures } from '../../test/forward-fixtures.js';

const { setUp } = useForwardFixtures();

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

  /** A watch that sends one event, whose `signal` is aborted once the client has it; resolves with what the client read and the result. */
  async function watchEndedBy(signal: 'shutdown' | 'serverDown'): Promise<{ read: string; result: ForwardResult }> {
    const controller = new AbortController();
    const { proxy } = await setUp(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED"}\n');
      },
      { forward: { forward: { watch: true, [signal]: controller.signal } } },
    );
    const answer = new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/api/v1/pods?watch=true`, { agent: false }, (res) => {
        let all = '';
        res.on('data', (c: Buffer) => {
          all += c.toString();
          controller.abort(new Error('connect timeout'));
        });
        res.on('end', () => resolve(all));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const read = await within(answer, 10_000, `the watch did not end on ${signal}`);
    return { read, result: (await proxy.nextResult()) as ForwardResult };
  }

  it('a shutdown ends a watch cleanly: the client sees the end of the stream, not an error', async () => {
    const { read, result } = await watchEndedBy('shutdown');
    expect(read).toBe('{"type":"ADDED"}\n');
    expect(result.error).toBeUndefined();
  });

  it('a server found unreachable ends its watch cleanly, and the result says why', async () => {
    const { read, result } = await watchEndedBy('serverDown');
    expect(read).toBe('{"type":"ADDED"}\n');
    expect(result.headersSent).toBe(true);
    expect(result.error).toEqual({
      code: 'PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN',
      message: "found unreachable by the port's health probe (connect timeout)",
    });
  });

  it('a watch still waiting for its headers when its server is found unreachable gets a 503 Status naming it', async () => {
    const serverDown = new AbortController();
    const { proxy } = await setUp(
      () => {
        // Never a byte: the headers are what the watch waits for.
        serverDown.abort(new Error('connect timeout'));
      },
      { forward: { forward: { watch: true, serverDown: serverDown.signal } } },
    );
    const answer = await within(send(`${proxy.url}/api/v1/pods?watch=true`), 10_000, 'the watch waited on');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      kind: 'Status',
      code: 503,
      message: expect.stringContaining("found unreachable by the port's health probe (connect timeout)"),
    });
    expect(((await proxy.nextResult()) as ForwardResult).error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_FOUND_DOWN');
  });
});
