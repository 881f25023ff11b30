// Two apiserver stand-ins (real HTTP on 127.0.0.1) sharing one "etcd" of API registrations, as two
// kube-apiservers of different releases: health, /version, aggregated /api and /apis of what each
// serves, the CRD and APIService lists, and their watches. The test removes or restores an APIService
// (as an older kube-apiserver does at start-up) and the stand-ins' APIService watches tell it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerConfig } from '../src/cluster/server-config.js';

export interface StandInSpec {
  readonly name: string;
  readonly gitVersion: string;
  /** group → versions this server serves (one resource, "things", in each). */
  readonly groups: Readonly<Record<string, readonly string[]>>;
}

export interface RegistrationStandIns {
  readonly servers: ServerConfig[];
  /** "group/version" of every APIService in the shared store. */
  readonly registered: Set<string>;
  /** Deletes an APIService ("v1.group") and tells every open APIService watch. */
  deregister(groupVersion: string): void;
  register(groupVersion: string): void;
  close(): Promise<void>;
}

function discovery(groups: Readonly<Record<string, readonly string[]>>): string {
  return JSON.stringify({
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    metadata: {},
    items: Object.entries(groups).map(([group, versions]) => ({
      metadata: { name: group },
      versions: versions.map((version) => ({
        version,
        freshness: 'Current',
        resources: [
          {
            resource: 'things',
            responseKind: { group, version, kind: 'Thing' },
            scope: 'Namespaced',
            singularResource: 'thing',
            verbs: ['create', 'get', 'list', 'watch'],
          },
        ],
      })),
    })),
  });
}

const CORE = JSON.stringify({
  apiVersion: 'apidiscovery.k8s.io/v2',
  kind: 'APIGroupDiscoveryList',
  metadata: {},
  items: [
    {
      metadata: {},
      versions: [
        {
          version: 'v1',
          resources: [
            { resource: 'pods', responseKind: { group: '', version: 'v1', kind: 'Pod' }, scope: 'Namespaced', verbs: ['get', 'list'] },
          ],
        },
      ],
    },
  ],
});

function apiService(groupVersion: string, resourceVersion: number) {
  const [group, version] = groupVersion.split('/') as [string, string];
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, resourceVersion: String(resourceVersion) },
    spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 15 },
  };
}

export async function startRegistrationStandIns(specs: readonly StandInSpec[]): Promise<RegistrationStandIns> {
  const registered = new Set<string>();
  for (const s of specs) for (const [g, vs] of Object.entries(s.groups)) for (const v of vs) registered.add(`${g}/${v}`);
  let resourceVersion = 10;
  const watches = new Set<ServerResponse>();
  const servers: Server[] = [];
  const tell = (type: 'ADDED' | 'DELETED', groupVersion: string) => {
    resourceVersion++;
    const line = `${JSON.stringify({ type, object: apiService(groupVersion, resourceVersion) })}\n`;
    for (const w of watches) w.write(line);
  };
  for (const spec of specs) {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      if (url.pathname === '/readyz' || url.pathname === '/livez') return void res.writeHead(200).end('[+]ping ok\nreadyz check passed\n');
      if (url.pathname === '/version')
        return json(JSON.stringify({ major: '1', minor: spec.gitVersion.split('.')[1], gitVersion: spec.gitVersion }));
      if (url.pathname === '/api') return json(CORE);
      if (url.pathname === '/apis') return json(discovery(spec.groups));
      const watched =
        url.pathname === '/apis/apiregistration.k8s.io/v1/apiservices' ||
        url.pathname === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      if (watched && url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        if (url.pathname.includes('apiservices')) {
          watches.add(res);
          res.on('close', () => watches.delete(res));
        }
        return;
      }
      if (url.pathname === '/apis/apiregistration.k8s.io/v1/apiservices')
        return json(
          JSON.stringify({
            kind: 'APIServiceList',
            apiVersion: 'apiregistration.k8s.io/v1',
            metadata: { resourceVersion: String(resourceVersion) },
            items: [...registered].map((gv) => apiService(gv, resourceVersion)),
          }),
        );
      if (url.pathname === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')
        return json(
          JSON.stringify({
            kind: 'CustomResourceDefinitionList',
            apiVersion: 'apiextensions.k8s.io/v1',
            metadata: { resourceVersion: String(resourceVersion) },
            items: [],
          }),
        );
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
    };
    const server = createServer(handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    servers: servers.map((s, i) => ({ name: specs[i]!.name, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` })),
    registered,
    deregister(groupVersion) {
      if (registered.delete(groupVersion)) tell('DELETED', groupVersion);
    },
    register(groupVersion) {
      if (!registered.has(groupVersion)) {
        registered.add(groupVersion);
        tell('ADDED', groupVersion);
      }
    },
    async close() {
      for (const w of watches) w.destroy();
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}
