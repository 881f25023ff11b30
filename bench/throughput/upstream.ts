// The bench upstream: an HTTPS fake kube-apiserver in its own processes (node:cluster, one primary
// and `workers` workers sharing the port), so the proxies, not the upstream, are what is measured.
// It serves /version, /readyz, /livez, the aggregated discovery (v2) of one release for /api and
// /apis, empty CRD and APIService lists (what Peerscope reads to apply spec R6), and — only when its
// release serves the bench GVR — GET of one object, LIST, POST (echoes the created object) and a
// watch of N events. Everything it answers is built once at start; a request costs a lookup.
//
// Run by bench/throughput (bundled to dist/bench/upstream.mjs): `node upstream.mjs CONFIG.json`.
// The primary talks to the bench over IPC: it sends {ready, port, pids} once every worker listens,
// and answers {cmd:'stats'} with the connections opened and requests served, summed over workers.
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { DEFAULT_CIPHERS } from 'node:tls';
import { notFound as notFoundStatus } from '../../proxy-core/engine/util/status.js';
import { buildBodies, COLLECTION, PATHS, watchStream } from './objects.js';

export interface UpstreamConfig {
  readonly name: string;
  readonly gitVersion: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly token: string;
  /** JSON text of the aggregated discovery documents. */
  readonly apisFile: string;
  readonly apiFile: string;
  /** Whether this release serves the bench GVR (scheduling.k8s.io/v1beta1 podgroups). */
  readonly servesBench: boolean;
  readonly workers: number;
  readonly watchEvents: number;
}

export interface UpstreamStats {
  readonly connections: number;
  readonly requests: number;
}

type Message = { cmd: 'stats'; id: number } | { stats: UpstreamStats; id: number };

const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as UpstreamConfig;

if (cluster.isPrimary) await primary();
else worker();

async function freePort(): Promise<number> {
  const s = createTcpServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function primary(): Promise<void> {
  const port = await freePort();
  const workers = Array.from({ length: Math.max(1, config.workers) }, () => cluster.fork({ BENCH_UPSTREAM_PORT: String(port) }));
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve, reject) => {
          w.once('listening', resolve);
          w.once('exit', (code) => reject(new Error(`upstream worker exited with ${code}`)));
        }),
    ),
  );
  let nextId = 0;
  const pending = new Map<number, { left: number; sum: { connections: number; requests: number }; reply: (s: UpstreamStats) => void }>();
  for (const w of workers) {
    w.on('message', (m: Message) => {
      if (!('stats' in m)) return;
      const p = pending.get(m.id);
      if (!p) return;
      p.sum.connections += m.stats.connections;
      p.sum.requests += m.stats.requests;
      if (--p.left === 0) {
        pending.delete(m.id);
        p.reply(p.sum);
      }
    });
  }
  process.on('message', (m: Message) => {
    if (!('cmd' in m) || m.cmd !== 'stats') return;
    const id = ++nextId;
    pending.set(id, { left: workers.length, sum: { connections: 0, requests: 0 }, reply: (stats) => process.send?.({ stats, id: m.id }) });
    for (const w of workers) w.send({ cmd: 'stats', id });
  });
  // The bench going away takes the upstream with it.
  process.on('disconnect', () => {
    for (const w of workers) w.kill();
    process.exit(0);
  });
  process.send?.({ ready: true, port, pids: [process.pid, ...workers.map((w) => w.process.pid)] });
}

function worker(): void {
  const auth = `Bearer ${config.token}`;
  const bodies = buildBodies();
  const watch = config.servesBench ? watchStream(config.watchEvents) : Buffer.alloc(0);
  const apis = readFileSync(config.apisFile);
  const api = readFileSync(config.apiFile);
  const version = Buffer.from(
    JSON.stringify({
      major: '1',
      minor: config.gitVersion.split('.')[1] ?? '0',
      gitVersion: config.gitVersion,
      gitCommit: 'bench',
      gitTreeState: 'clean',
      buildDate: '2026-11-01T00:00:00Z',
      goVersion: 'go1.25.4',
      compiler: 'gc',
      platform: 'linux/amd64',
    }),
  );
  const discoveryType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const emptyList = (kind: string, apiVersion: string) =>
    Buffer.from(JSON.stringify({ kind, apiVersion, metadata: { resourceVersion: '1999' }, items: [] }));
  const crds = emptyList('CustomResourceDefinitionList', 'apiextensions.k8s.io/v1');
  const apiServices = emptyList('APIServiceList', 'apiregistration.k8s.io/v1');
  const notFound = Buffer.from(JSON.stringify(notFoundStatus()));
  const unauthorized = Buffer.from(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    }),
  );
  const ok = Buffer.from('ok');
  // Headers a kube-apiserver sets on every answer (APF flow schema, audit ID): the proxies relay them.
  const flowSchema = randomUUID();
  const priorityLevel = randomUUID();
  let connections = 0;
  let requests = 0;
  let rv = 5000;

  function send(res: ServerResponse, status: number, type: string, body: Buffer): void {
    res.writeHead(status, [
      'Audit-Id',
      randomUUID(),
      'Cache-Control',
      'no-cache, private',
      'Content-Type',
      type,
      'X-Kubernetes-Pf-Flowschema-Uid',
      flowSchema,
      'X-Kubernetes-Pf-Prioritylevel-Uid',
      priorityLevel,
      'Content-Length',
      String(body.length),
    ]);
    res.end(body);
  }

  function create(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let obj: { metadata?: Record<string, unknown> };
      try {
        obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof obj;
      } catch {
        return send(res, 400, 'application/json', notFound);
      }
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      obj.metadata = {
        ...obj.metadata,
        uid: randomUUID(),
        resourceVersion: String(++rv),
        generation: 1,
        creationTimestamp: now,
        managedFields: [
          {
            manager: 'kubectl-create',
            operation: 'Update',
            apiVersion: 'scheduling.k8s.io/v1beta1',
            time: now,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': {} },
          },
        ],
      };
      send(res, 201, 'application/json', Buffer.from(JSON.stringify(obj)));
    });
  }

  function serveWatch(res: ServerResponse): void {
    res.writeHead(200, [
      'Audit-Id',
      randomUUID(),
      'Cache-Control',
      'no-cache, private',
      'Content-Type',
      'application/json',
      'X-Kubernetes-Pf-Flowschema-Uid',
      flowSchema,
      'X-Kubernetes-Pf-Prioritylevel-Uid',
      priorityLevel,
    ]);
    // kube-apiserver flushes after an event when no other is queued; under a burst that means
    // writes of several events at a time. 16 KiB slices, with back-pressure.
    let offset = 0;
    const step = (): void => {
      while (offset < watch.length) {
        const end = Math.min(watch.length, offset + 16_384);
        const more = res.write(watch.subarray(offset, end));
        offset = end;
        if (!more) {
          res.once('drain', step);
          return;
        }
      }
      res.end();
    };
    step();
  }

  /** A watch of the collection, its parameters in any order: the bench's client sends `watch=1`, client-go sorts them and sends `watch=true` (watch-client.ts). */
  const isCollectionWatch = (url: string): boolean =>
    url.startsWith(`${COLLECTION}?`) && ['1', 'true'].includes(new URLSearchParams(url.slice(COLLECTION.length + 1)).get('watch') ?? '');

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    requests++;
    const url = req.url ?? '/';
    if (url === '/readyz' || url === '/livez' || url === '/healthz' || url.startsWith('/readyz?') || url.startsWith('/livez?'))
      return send(res, 200, 'text/plain; charset=utf-8', ok);
    if (url === '/version') return send(res, 200, 'application/json', version);
    if (req.headers.authorization !== auth) return send(res, 401, 'application/json', unauthorized);
    if (req.method === 'GET') {
      if (config.servesBench) {
        if (url === PATHS.get) return send(res, 200, 'application/json', bodies.object);
        if (url === PATHS.list) return send(res, 200, 'application/json', bodies.list);
        if (isCollectionWatch(url)) return serveWatch(res);
      }
      if (url === '/apis') return send(res, 200, discoveryType, apis);
      if (url === '/api') return send(res, 200, discoveryType, api);
      if (url === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') return send(res, 200, 'application/json', crds);
      if (url === '/apis/apiregistration.k8s.io/v1/apiservices') return send(res, 200, 'application/json', apiServices);
    }
    if (req.method === 'POST' && config.servesBench && url === COLLECTION) return create(req, res);
    // Drain an unexpected body so the connection stays usable.
    req.resume();
    send(res, 404, 'application/json', notFound);
  };

  const GO_FIRST_SUITE = 'TLS_AES_128_GCM_SHA256';
  const options: ServerOptions = {
    cert: readFileSync(config.certFile),
    key: readFileSync(config.keyFile),
    keepAliveTimeout: 120_000,
    requestTimeout: 0,
    // As kube-apiserver chooses: Go's TLS 1.3 server takes AES-128-GCM for any client that prefers an
    // AES-GCM suite, while Node's server would take the client's first choice (AES-256-GCM for Node,
    // AES-128-GCM for Go). Every proxy in the bench decrypts what it would in front of a real apiserver.
    ciphers: [GO_FIRST_SUITE, ...DEFAULT_CIPHERS.split(':').filter((c) => c !== GO_FIRST_SUITE)].join(':'),
    honorCipherOrder: true,
  };
  const server = createServer(options, handler);
  server.on('secureConnection', () => {
    connections++;
  });
  process.on('message', (m: Message) => {
    if ('cmd' in m && m.cmd === 'stats') process.send?.({ stats: { connections, requests }, id: m.id });
  });
  server.listen(Number(process.env.BENCH_UPSTREAM_PORT), '127.0.0.1');
}
