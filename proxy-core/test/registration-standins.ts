// Two apiserver stand-ins (real HTTP on 127.0.0.1) sharing one "etcd" of API registrations, as two
// kube-apiservers of different releases: health, /version, aggregated /api and /apis of what each
// serves, legacy /apis of the registrations (and apiregistration.k8s.io, which no APIService names,
// as kube-apiserver lists it), the CRD and APIService lists, and their watches. The test removes or restores an APIService
// (as an older kube-apiserver does at start-up) and the stand-ins' APIService watches tell it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerConfig } from '../engine/cluster/server-config.js';

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
  /**
   * A CRD created (or deleted): every server serves its group-version at once, and the open CRD
   * watches are told — as kube-apiservers sharing one etcd do.
   */
  createCrd(group: string, version: string): void;
  deleteCrd(group: string, version: string): void;
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

function legacyGroups(groupVersions: readonly string[]): string {
  const byGroup = new Map<string, string[]>();
  for (const gv of groupVersions) {
    const [group, version] = gv.split('/') as [string, string];
    byGroup.set(group, [...(byGroup.get(group) ?? []), version]);
  }
  const of = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });
  return JSON.stringify({
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...byGroup].map(([name, versions]) => ({
      name,
      versions: versions.map((v) => of(name, v)),
      preferredVersion: of(name, versions[0]!),
    })),
  });
}

function apiService(groupVersion: string, resourceVersion: number) {
  const [group, version] = groupVersion.split('/') as [string, string];
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, resourceVersion: String(resourceVersion) },
    spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 15 },
  };
}

function crdObject(groupVersion: string, resourceVersion: number) {
  const [group, version] = groupVersion.split('/') as [string, string];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${group}`, resourceVersion: String(resourceVersion) },
    spec: { group, versions: [{ name: version, served: true, storage: true }] },
  };
}

export async function startRegistrationStandIns(specs: readonly StandInSpec[]): Promise<RegistrationStandIns> {
  const registered = new Set<string>();
  // Every group served is registered, as kube-apiserver does at start-up — but the aggregator's own,
  // which it serves without an APIService.
  for (const s of specs)
    for (const [g, vs] of Object.entries(s.groups)) for (const v of vs) if (g !== 'apiregistration.k8s.io') registered.add(`${g}/${v}`);
  let resourceVersion = 10;
  const watches = new Set<ServerResponse>();
  const crdWatches = new Set<ServerResponse>();
  const crds = new Set<string>();
  const servedBy = (spec: StandInSpec): Record<string, readonly string[]> => {
    const groups: Record<string, string[]> = Object.fromEntries(Object.entries(spec.groups).map(([g, vs]) => [g, [...vs]]));
    for (const gv of crds) {
      const [g, v] = gv.split('/') as [string, string];
      (groups[g] ??= []).push(v);
    }
    return groups;
  };
  const tellCrd = (type: 'ADDED' | 'DELETED', groupVersion: string) => {
    resourceVersion++;
    const object = crdObject(groupVersion, resourceVersion);
    for (const w of crdWatches) w.write(`${JSON.stringify({ type, object })}\n`);
  };
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
      // Aggregated discovery, marked as such (kubectl reads the Content-Type to tell it from legacy).
      const aggregated = (body: string) =>
        res.writeHead(200, { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }).end(body);
      if (url.pathname === '/api') return aggregated(CORE);
      // Legacy /apis as kube-apiserver lists it: every APIService (shared), and the aggregator's own group.
      if (url.pathname === '/apis' && !(req.headers.accept ?? '').includes('as=APIGroupDiscoveryList'))
        return json(legacyGroups([...registered, 'apiregistration.k8s.io/v1']));
      if (url.pathname === '/apis') return aggregated(discovery(servedBy(spec)));
      const watched =
        url.pathname === '/apis/apiregistration.k8s.io/v1/apiservices' ||
        url.pathname === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      if (watched && url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        const set = url.pathname.includes('apiservices') ? watches : crdWatches;
        set.add(res);
        res.on('close', () => set.delete(res));
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
            items: [...crds].map((gv) => crdObject(gv, resourceVersion)),
          }),
        );
      // A resource request for a group-version this server serves: created (POST) or an empty list.
      const gv = /^\/apis\/([^/]+)\/([^/]+)\//.exec(url.pathname);
      if (gv && servedBy(spec)[gv[1]!]?.includes(gv[2]!)) {
        if (req.method === 'POST') {
          let body = '';
          req.on('data', (c: Buffer) => (body += c.toString('utf8')));
          req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(body));
          return;
        }
        return json(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(resourceVersion) }, items: [] }));
      }
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
    createCrd(group, version) {
      crds.add(`${group}/${version}`);
      registered.add(`${group}/${version}`);
      tellCrd('ADDED', `${group}/${version}`);
    },
    deleteCrd(group, version) {
      crds.delete(`${group}/${version}`);
      registered.delete(`${group}/${version}`);
      tellCrd('DELETED', `${group}/${version}`);
    },
    async close() {
      for (const w of [...watches, ...crdWatches]) w.destroy();
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}
