// The re-check the port makes before answering "nobody serves this" (404) or "every candidate is
// down" (503): it must see a server that came back before the request arrived, even when another
// re-check ran just before that (it was rate-limited to one per 50 ms, and a request in that window
// got the stale answer: the soak's "strict" false 404s).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerSet } from './server-set.js';

const APIS = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [
    {
      metadata: { name: 'resource.k8s.io' },
      versions: [{ version: 'v1', resources: [{ resource: 'deviceclasses', scope: 'Cluster', verbs: ['list'] }] }],
    },
  ],
});
const API = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });

function apiserver(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/apis') return res.writeHead(200, { 'content-type': 'application/json' }).end(APIS);
    if (path === '/api') return res.writeHead(200, { 'content-type': 'application/json' }).end(API);
    if (path === '/version') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"gitVersion":"v1.37.0"}');
    if (path === '/readyz') return res.writeHead(200).end('ok');
    res.writeHead(404).end();
  });
}

async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('ServerSet.recheckOutOfService', () => {
  it('sees a server that came back just after another re-check', async () => {
    const port = await freePort();
    const servers = new ServerSet([{ name: 'b', url: `http://127.0.0.1:${port}` }], {
      probeIntervalMs: 60_000,
      discoveryIntervalMs: 60_000,
    });
    cleanups.push(() => servers.close());
    await servers.start();
    expect(servers.health('b')).toBe('unreachable');
    // A re-check while it is down (another request's)...
    await servers.recheckOutOfService();
    expect(servers.health('b')).toBe('unreachable');
    // ...then it comes back, and a request arrives: its re-check must look again.
    const server = apiserver().listen(port, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    await servers.recheckOutOfService();
    expect(servers.health('b')).toBe('ready');
    expect(servers.discovery('b')?.gvrs).toEqual([{ group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses' }]);
  });

  it('shares one re-check among requests that arrive while it runs, and starts one more for the latecomers', async () => {
    const port = await freePort();
    let probes = 0;
    const server = createServer((req, res) => {
      if ((req.url ?? '').startsWith('/readyz')) probes++;
      res.writeHead(500).end('[-]etcd failed: reason withheld\n');
    }).listen(port, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const servers = new ServerSet([{ name: 'b', url: `http://127.0.0.1:${port}` }], {
      probeIntervalMs: 60_000,
      discoveryIntervalMs: 60_000,
    });
    cleanups.push(() => servers.close());
    await servers.start();
    const before = probes;
    await Promise.all(Array.from({ length: 20 }, () => servers.recheckOutOfService()));
    // The first starts one; those arriving while it runs share a second one: never one per request.
    expect(probes - before).toBeGreaterThanOrEqual(1);
    expect(probes - before).toBeLessThanOrEqual(2);
  });
});
