// Upstream faults through the whole port (issue: hold a whole rollout under load, "Upstream faults"),
// each mapped to the right answer: a watch the apiserver ends cleanly ends cleanly for the client,
// one it cuts is cut for the client too (so a reflector resumes instead of trusting a partial
// stream); stalled headers become a 503 Status after the configured timeout; a reset mid-body cuts
// the answer; garbage instead of HTTP is a 503 Status; and a client that never reads stalls the
// apiserver within bounded bytes, then releases it when it leaves. The unit-level cases (TLS,
// connect timeout, refused) are in src/upstream/forward-failures.test.ts.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import { createCore, type Core } from '../engine/core.js';
import { eventually } from './harness.js';

const APIS = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });
const API = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [{ versions: [{ version: 'v1', resources: [{ resource: 'configmaps', scope: 'Namespaced', verbs: ['get', 'list', 'watch'] }] }] }],
});
const EVENT = (rv: number) =>
  `${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${rv}`, namespace: 'd', resourceVersion: String(rv) } } })}\n`;
const BIG_CHUNK = Buffer.alloc(64 * 1024, 0x61);

interface Faulty {
  readonly server: Server;
  readonly url: string;
  /** Bytes written by the endless answer, and whether it is waiting for the socket to drain. */
  readonly endless: { written: number; waiting: boolean; closed: Promise<void> };
}

async function startFaulty(): Promise<Faulty> {
  let onClosed: () => void = () => undefined;
  const endless = { written: 0, waiting: false, closed: new Promise<void>((r) => (onClosed = r)) };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (url.pathname === '/apis') return json(APIS);
    if (url.pathname === '/api') return json(API);
    if (url.pathname === '/version') return json('{"gitVersion":"v1.37.0-faulty"}');
    if (url.pathname === '/readyz') return res.end('ok');
    const mode = url.searchParams.get('fault');
    if (mode === 'watch-end' || mode === 'watch-cut') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(EVENT(1));
      res.write(EVENT(2));
      res.write(EVENT(3));
      setTimeout(() => (mode === 'watch-end' ? res.end() : res.socket?.destroy()), 50);
      return;
    }
    if (mode === 'stall') return; // never a byte
    if (mode === 'watch-open') return void res.writeHead(200, { 'content-type': 'application/json' }).write(EVENT(1));
    if (mode === 'reset-mid-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('{"kind":"ConfigMapList","items":[');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (mode === 'garbage') return void res.socket?.end('220 smtp.example ESMTP ready\r\n');
    if (mode === 'endless') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.on('close', () => onClosed());
      const pump = () => {
        while (!res.destroyed) {
          endless.written += BIG_CHUNK.length;
          if (!res.write(BIG_CHUNK)) {
            endless.waiting = true;
            return void res.once('drain', () => {
              endless.waiting = false;
              pump();
            });
          }
        }
      };
      return pump();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"ConfigMapList","items":[]}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, endless };
}

describe('upstream faults through the port', () => {
  let faulty: Faulty;
  let core: Core;
  let url: string;
  beforeAll(async () => {
    faulty = await startFaulty();
    // The headers timeout is configurable (serve --upstream-headers-timeout); short here.
    core = createCore({ servers: [{ name: 'f', url: faulty.url }], listen: { port: 0 }, upstream: { headersTimeoutMs: 300 } });
    url = (await core.start()).url;
  });
  afterAll(async () => {
    await core?.close(0);
    faulty?.server.closeAllConnections();
    await new Promise<void>((r) => faulty?.server.close(() => r()));
  });

  async function readWatch(fault: string): Promise<{ events: number; ending: 'clean' | 'cut'; route: string }> {
    const res = await request(`${url}/api/v1/namespaces/d/configmaps?watch=true&fault=${fault}`);
    let text = '';
    let ending: 'clean' | 'cut' = 'clean';
    try {
      for await (const chunk of res.body) text += (chunk as Buffer).toString();
    } catch {
      ending = 'cut';
    }
    return { events: text.split('\n').filter(Boolean).length, ending, route: String(res.headers['x-peerscope-route']) };
  }

  it('a watch the apiserver ends cleanly ends cleanly for the client, with every event', async () => {
    expect(await readWatch('watch-end')).toEqual({ events: 3, ending: 'clean', route: 'handling=f; answering=f; outcome=local' });
  });

  it('a watch the apiserver cuts is cut for the client too: the reflector resumes rather than trust a partial stream', async () => {
    expect(await readWatch('watch-cut')).toMatchObject({ events: 3, ending: 'cut' });
  });

  it('a client that leaves a watch is not counted as a failure of the apiserver; a cut answer is', async () => {
    const failures = () => core.telemetry.errorSeries('f').reduce((n, b) => n + b.count, 0);
    const before = failures();
    const res = await request(`${url}/api/v1/namespaces/d/configmaps?watch=true&fault=watch-open`);
    const reader = res.body[Symbol.asyncIterator]();
    await reader.next(); // the first event has come through
    res.body.destroy();
    await eventually(
      () => core.telemetry.recent().some((e) => e.path.endsWith('/configmaps') && /went away/.test(e.error ?? '')),
      'the routing event of the abandoned watch',
    );
    expect(failures()).toBe(before);
    expect(await readWatch('watch-cut')).toMatchObject({ ending: 'cut' });
    await eventually(() => failures() === before + 1, 'the cut answer counted against the server');
  });

  it('stalled response headers become a 503 Status after the configured timeout', async () => {
    const started = performance.now();
    const res = await request(`${url}/api/v1/namespaces/d/configmaps?fault=stall`);
    const ms = performance.now() - started;
    expect(res.statusCode).toBe(503);
    expect(await res.body.json()).toMatchObject({
      kind: 'Status',
      code: 503,
      reason: 'ServiceUnavailable',
      message: expect.stringContaining('no response headers in time'),
    });
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(5_000);
  });

  it('a reset in the middle of the body cuts the answer, and the port keeps serving', async () => {
    const res = await request(`${url}/api/v1/namespaces/d/configmaps?fault=reset-mid-body`);
    expect(res.statusCode).toBe(200);
    await expect(res.body.text()).rejects.toThrow();
    const after = await request(`${url}/api/v1/namespaces/d/configmaps`);
    expect(after.statusCode).toBe(200);
    await after.body.text();
  });

  it('garbage instead of HTTP is a 503 Status naming a malformed response', async () => {
    const res = await request(`${url}/api/v1/namespaces/d/configmaps?fault=garbage`);
    expect(res.statusCode).toBe(503);
    expect(await res.body.json()).toMatchObject({ kind: 'Status', code: 503, message: expect.stringContaining('malformed response') });
  });

  it('a client that never reads stalls the apiserver within bounded bytes, and releases it when it leaves', async () => {
    const client = connect(Number(new URL(url).port), '127.0.0.1');
    await once(client, 'connect');
    client.pause();
    client.write(`GET /api/v1/namespaces/d/configmaps?fault=endless HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    let last = -1;
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (faulty.endless.waiting && faulty.endless.written === last) break;
      last = faulty.endless.written;
    }
    expect(faulty.endless.waiting).toBe(true);
    // Socket buffers only (kernel and stream high-water marks): nothing piles up in the port.
    expect(faulty.endless.written).toBeLessThan(32 * 1024 * 1024);
    client.destroy();
    await Promise.race([
      faulty.endless.closed,
      new Promise((_r, reject) => setTimeout(() => reject(new Error('the apiserver answer stayed open after the client left')), 10_000)),
    ]);
  });
});

describe('timeouts are flags of peerscope serve', () => {
  it('--upstream-connect-timeout and --upstream-headers-timeout are documented in its help', () => {
    const help = spawnSync(process.execPath, ['bin/peerscope', 'serve', '--help'], { cwd: repoRoot, encoding: 'utf8' }).stdout;
    expect(help).toContain('--upstream-connect-timeout <seconds>');
    expect(help).toContain('--upstream-headers-timeout <seconds>');
    expect(help).toMatch(/default: 10\b/);
    expect(help).toMatch(/default: 70\b/);
  });
});
