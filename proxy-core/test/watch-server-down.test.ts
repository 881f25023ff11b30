// Issue 34, watches to a server found down: a watch relayed to a server whose link goes silent would
// wait for ever (TCP says nothing). The port's probes find the server unreachable (their own
// connection cannot finish its TLS handshake within the probe connect timeout) and the port ends every
// watch it relays there cleanly, within two probe intervals, so a reflector lists again elsewhere. A
// server that is merely slow to answer its probes keeps its watches. The stand-in apiserver is real
// HTTPS behind a TCP link this file can silence: bytes stop in both directions, and new connections
// are accepted but never carried, as on a blackholed address.
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { eventually } from './harness.js';
import { createTlsMaterial, startHttpsUpstream, type TestServer, type TlsMaterial } from './upstream-fixtures.js';

const PROBE_INTERVAL_MS = 2_000; // the port's default

const API = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [{ versions: [{ version: 'v1', resources: [{ resource: 'configmaps', scope: 'Namespaced', verbs: ['get', 'list', 'watch'] }] }] }],
});
const APIS = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });
const EVENT = `${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'd', resourceVersion: '1' } } })}\n`;

/** An apiserver stand-in: discovery, readiness (answered after `readyDelayMs`), and watches that stay open after one event. */
function apiserver(readyDelayMs: number): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'https://x');
    const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (url.pathname === '/api') return json(API);
    if (url.pathname === '/apis') return json(APIS);
    if (url.pathname === '/version') return json('{"gitVersion":"v1.37.0-standin"}');
    if (url.pathname === '/readyz') return void setTimeout(() => res.end('[+]ping ok\nreadyz check passed\n'), readyDelayMs);
    if (url.searchParams.get('watch') === 'true') return void res.writeHead(200, { 'content-type': 'application/json' }).write(EVENT);
    json('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}');
  };
}

/** A TCP link to `port` that can go silent: nothing more crosses it, and new connections hang unanswered. */
interface Link {
  readonly port: number;
  silence(): void;
  close(): Promise<void>;
}

async function startLink(port: number): Promise<Link> {
  const sockets = new Set<Socket>();
  const pairs: Array<[Socket, Socket]> = [];
  let silent = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (silent) return client.pause();
    const upstream = new (client.constructor as typeof Socket)();
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.connect(port, '127.0.0.1', () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
    pairs.push([client, upstream]);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    silence() {
      silent = true;
      for (const [a, b] of pairs) {
        a.unpipe(b);
        b.unpipe(a);
        a.pause();
        b.pause();
      }
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Bed {
  readonly core: Core;
  readonly portUrl: string;
  readonly link: Link;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let tls: TlsMaterial | undefined;
async function startBed(readyDelayMs: number): Promise<Bed> {
  tls ??= await createTlsMaterial();
  const upstream: TestServer = await startHttpsUpstream(tls, apiserver(readyDelayMs));
  cleanups.push(() => upstream.close());
  const link = await startLink(upstream.port);
  cleanups.push(() => link.close());
  const core = createCore({
    servers: [{ name: 'kube-a', url: `https://127.0.0.1:${link.port}`, ca: tls.ca.cert }],
    listen: { port: 0 },
    probeIntervalMs: PROBE_INTERVAL_MS,
  });
  cleanups.push(() => core.close(0));
  const portUrl = (await core.start()).url;
  expect(core.servers.health('kube-a')).toBe('ready');
  return { core, portUrl, link };
}

/** Opens a watch through the port and waits for its first event; `ended` tells how and when it ended. */
async function openWatch(portUrl: string): Promise<{ ended: Promise<{ how: 'clean' | 'cut'; at: number }>; close(): void }> {
  const dispatcher = new Agent();
  cleanups.push(() => dispatcher.close());
  const res = await request(`${portUrl}/api/v1/namespaces/d/configmaps?watch=true`, { dispatcher });
  expect(res.statusCode).toBe(200);
  const reader = res.body[Symbol.asyncIterator]();
  expect(String((await reader.next()).value)).toBe(EVENT);
  const ended = (async () => {
    try {
      while (!(await reader.next()).done);
      return { how: 'clean' as const, at: performance.now() };
    } catch {
      return { how: 'cut' as const, at: performance.now() };
    }
  })();
  return { ended, close: () => res.body.destroy() };
}

describe('watches to a server found unreachable (issue 34)', () => {
  it('a server whose link goes silent mid-watch: the port ends the watch cleanly within two probe intervals', async () => {
    const { core, portUrl, link } = await startBed(0);
    const watch = await openWatch(portUrl);
    const silentAt = performance.now();
    link.silence();
    const ended = await Promise.race([
      watch.ended,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 4 * PROBE_INTERVAL_MS).unref()),
    ]);
    expect(ended, 'the watch was still open after four probe intervals').toBeDefined();
    const afterMs = (ended?.at ?? 0) - silentAt;
    console.log(`silent link: the watch ended ${ended?.how} ${Math.round(afterMs)} ms after the link went silent`);
    expect(ended?.how).toBe('clean');
    expect(afterMs).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS);
    expect(core.servers.health('kube-a')).toBe('unreachable');
    expect(core.servers.lastError('kube-a')).toMatch(/timeout/i);
    // The routing event says why the watch ended, and the error counts against the server.
    await eventually(
      () => core.telemetry.recent().some((e) => e.path.endsWith('/configmaps') && /found unreachable/.test(e.error ?? '')),
      'the routing event of the ended watch',
    );
  });

  it('a server slow to answer its probes (but answering) keeps its watches', async () => {
    const { core, portUrl } = await startBed(Math.round(PROBE_INTERVAL_MS / 2));
    const watch = await openWatch(portUrl);
    const open = await Promise.race([
      watch.ended.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 3 * PROBE_INTERVAL_MS).unref()),
    ]);
    expect(open, 'the watch of a slow server was ended').toBe(true);
    expect(core.servers.health('kube-a')).toBe('ready');
    expect(core.servers.status('kube-a')?.latencyMs).toBeGreaterThanOrEqual(PROBE_INTERVAL_MS / 2 - 50);
    watch.close();
  });
});
