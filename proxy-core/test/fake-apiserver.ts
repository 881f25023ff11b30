// A minimal apiserver for byte-level tests of the port: the discovery of one GVR, health, a watch
// that writes a fixed number of events, an endpoint that hashes the body it receives, a list that
// carries a deprecation warning (THINGS_WARNING), and a stall.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const APIS = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [
    {
      metadata: { name: 'example.io' },
      versions: [
        {
          version: 'v1',
          freshness: 'Current',
          resources: [
            {
              resource: 'things',
              responseKind: { group: '', version: '', kind: 'Thing' },
              scope: 'Namespaced',
              singularResource: 'thing',
              verbs: ['create', 'get', 'list', 'watch'],
            },
          ],
        },
      ],
    },
  ],
});
const API = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });

/** The warning text GET /apis/example.io/v1/things (a list) answers with, as `Warning: 299 - "…"`. */
export const THINGS_WARNING = 'example.io/v1 Thing is deprecated in v1.37+, unavailable in v1.40+; use example.io/v2 Thing';

/** The bytes the watch writes: `count` ADDED events, one per line. */
export function watchBytes(count: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(
      JSON.stringify({
        type: 'ADDED',
        object: {
          apiVersion: 'example.io/v1',
          kind: 'Thing',
          metadata: { name: `t-${i}`, namespace: 'd', resourceVersion: String(i + 1) },
          spec: { n: i },
        },
      }) + '\n',
    );
  return Buffer.from(lines.join(''));
}

export interface FakeApiserver {
  readonly url: string;
  readonly server: Server;
  /** SHA-256 of each request body received on POST /apis/example.io/v1/namespaces/d/things. */
  readonly bodyHashes: string[];
  /** Resolves when a client of the slow watch has gone away. */
  clientGone(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeApiserver(watchEvents = 10_000): Promise<FakeApiserver> {
  const bodyHashes: string[] = [];
  let gone: () => void = () => undefined;
  const gonePromise = new Promise<void>((r) => (gone = r));
  const watch = watchBytes(watchEvents);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (path === '/apis') return json(APIS);
    if (path === '/api') return json(API);
    if (path === '/readyz' || path === '/livez') return res.end('ok');
    if (path === '/version') return json('{"gitVersion":"v1.37.0-fake"}');
    if (path === '/apis/example.io/v1/things' && (req.url ?? '').includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json', warning: '299 - "fake warning"' });
      // Written in uneven chunks, as a real server flushes events.
      let offset = 0;
      const step = () => {
        while (offset < watch.length) {
          const end = Math.min(watch.length, offset + 1 + Math.floor(Math.random() * 8192));
          const ok = res.write(watch.subarray(offset, end));
          offset = end;
          if (!ok) return res.once('drain', step);
        }
        res.end();
      };
      return step();
    }
    if (path === '/apis/example.io/v1/things' && req.method === 'GET') {
      return res
        .writeHead(200, { 'content-type': 'application/json', warning: `299 - "${THINGS_WARNING}"` })
        .end('{"kind":"ThingList","apiVersion":"example.io/v1","metadata":{},"items":[]}');
    }
    if (path === '/apis/example.io/v1/namespaces/d/things' && req.method === 'POST') {
      const hash = createHash('sha256');
      req.on('data', (c: Buffer) => hash.update(c));
      req.on('end', () => {
        bodyHashes.push(hash.digest('hex'));
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"kind":"Thing"}');
      });
      return;
    }
    if (
      path === '/apis/example.io/v1/namespaces/d/things/slow' ||
      (path === '/apis/example.io/v1/namespaces/d/things' && req.method === 'GET' && (req.url ?? '').includes('watch=true'))
    ) {
      // A never-ending stream: tells the test when the client side has gone.
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write('{"type":"BOOKMARK"}\n'), 10);
      res.on('close', () => {
        clearInterval(timer);
        gone();
      });
      return;
    }
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    bodyHashes,
    clientGone: () => gonePromise,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
