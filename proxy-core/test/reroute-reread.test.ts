// A peer that just came back at another release is not rerouted to on its old discovery (the long
// soak's strict false 404s, all while a rollout went back to the older release): B served X, B
// restarts without X, and while the port re-reads B's discovery every request for X must go to C,
// which still serves it — not to B, which would answer its own 404.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { eventually } from './harness.js';

const X = { resource: 'deviceclasses', scope: 'Cluster', verbs: ['list'] };
const apis = (withX: boolean) =>
  JSON.stringify({
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: withX ? [{ metadata: { name: 'resource.k8s.io' }, versions: [{ version: 'v1', resources: [X] }] }] : [],
  });
const API = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [{ versions: [{ version: 'v1', resources: [{ resource: 'pods', scope: 'Namespaced', verbs: ['list'] }] }] }],
});

/** A tiny apiserver: its release decides whether it serves X; `slowDiscoveryMs` delays its /apis. */
function apiserver(name: string, state: { withX: boolean; version: string; slowDiscoveryMs: number }): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: string) =>
      res.writeHead(status, { 'content-type': 'application/json', 'x-server': name }).end(body);
    if (path === '/readyz') return res.end('ok');
    if (path === '/version') return json(200, JSON.stringify({ gitVersion: state.version }));
    if (path === '/api') return json(200, API);
    if (path === '/apis') return void setTimeout(() => json(200, apis(state.withX)), state.slowDiscoveryMs);
    if (path === '/apis/resource.k8s.io/v1/deviceclasses') {
      return state.withX
        ? json(200, '{"kind":"DeviceClassList","items":[]}')
        : json(
            404,
            '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}',
          );
    }
    json(404, '{}');
  });
}

async function listen(server: Server, port = 0): Promise<number> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe("rerouting while a peer's discovery is re-read", () => {
  const servers: Server[] = [];
  let core: Core | undefined;
  afterAll(async () => {
    await core?.close(0);
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('does not send a request to a peer whose new release is still being read', async () => {
    const a = { withX: false, version: 'v1.36.0', slowDiscoveryMs: 0 };
    const b = { withX: true, version: 'v1.37.0', slowDiscoveryMs: 0 };
    const c = { withX: true, version: 'v1.37.0', slowDiscoveryMs: 0 };
    let bServer = apiserver('B', b);
    servers.push(apiserver('A', a), bServer, apiserver('C', c));
    const ports = [await listen(servers[0]!), await listen(bServer), await listen(servers[2]!)];
    core = createCore({
      servers: ['A', 'B', 'C'].map((name, i) => ({ name, url: `http://127.0.0.1:${ports[i]}` })),
      listen: { port: 0 },
      probeIntervalMs: 50,
      discoveryIntervalMs: 60_000,
      policy: { kind: 'pin', server: 'A' },
    });
    const { url } = await core.start();
    const serverSet = core.servers;

    // B goes down, and comes back at the older release (no X), its discovery slow to read.
    bServer.closeAllConnections();
    await new Promise<void>((r) => bServer.close(() => r()));
    await eventually(() => serverSet.health('B') === 'unreachable', 'B seen down');
    Object.assign(b, { withX: false, version: 'v1.36.0', slowDiscoveryMs: 1_000 });
    bServer = apiserver('B', b);
    servers[1] = bServer;
    await listen(bServer, ports[1]);
    await eventually(
      () => serverSet.health('B') === 'ready' && serverSet.rereadPending('B') !== undefined,
      'B seen back, its discovery being re-read',
    );

    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await request(`${url}/apis/resource.k8s.io/v1/deviceclasses`);
        await res.body.text();
        return `${res.statusCode} ${String(res.headers['x-server'])}`;
      }),
    );
    expect(new Set(answers)).toEqual(new Set(['200 C']));
  });
});
