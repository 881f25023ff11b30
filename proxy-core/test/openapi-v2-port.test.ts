// P8's merged /openapi/v2 through the port, on real sockets: two stand-in apiservers of two releases
// serve their own document in JSON and in protobuf (with ETag and 304, as kube-apiserver does); the
// port answers the union itself, in the form asked for, with ETag/304, X-Peerscope-Route and a routing
// event, reads each server's document once per change (a revalidation costs the server a 304), and
// gives the handling server's own answer with --faithful or for a form it does not merge.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutingEvent } from '../contract/index.js';
import { createCore, type Core } from '../engine/core.js';
import {
  jsonDocument,
  MERGED_DEFINITIONS,
  MERGED_PATHS,
  NEWER,
  OLDER,
  protobufDocument,
  readJsonDocument,
  readProtobufDocument,
  type SmallDocument,
} from './openapi-v2-documents.js';

const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const APIS = JSON.stringify({ apiVersion: 'apidiscovery.k8s.io/v2', kind: 'APIGroupDiscoveryList', metadata: {}, items: [] });

/** A stand-in apiserver of one release: health, /version, empty discovery, and its /openapi/v2 as kube-openapi serves it. */
interface StandIn {
  readonly url: string;
  /** Reads of /openapi/v2 that got the whole document (not a 304), by encoding. */
  readonly fullReads: { json: number; protobuf: number };
  document: SmallDocument;
  close(): Promise<void>;
}

async function standIn(gitVersion: string, document: SmallDocument): Promise<StandIn> {
  const fullReads = { json: 0, protobuf: 0 };
  const self = { fullReads, document } as { -readonly [K in keyof StandIn]: StandIn[K] };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/readyz' || path === '/livez') return res.end('ok');
    if (path === '/version') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ gitVersion }));
    if (path === '/apis' || path === '/api') return res.writeHead(200, { 'content-type': 'application/json' }).end(APIS);
    if (path === '/openapi/v2') {
      const accept = req.headers.accept ?? '';
      const encoding = accept.includes('protobuf') ? 'protobuf' : accept === '' || accept.includes('json') ? 'json' : undefined;
      if (!encoding) return res.writeHead(406, { vary: 'Accept' }).end();
      const json = jsonDocument(self.document);
      // kube-openapi's ETag is the JSON's hash, for both forms.
      const etag = `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
      const headers = { etag, 'cache-control': 'no-cache, private', vary: 'Accept' };
      if (req.headers['if-none-match'] === etag) return res.writeHead(304, headers).end();
      fullReads[encoding]++;
      const body = encoding === 'json' ? Buffer.from(json) : protobufDocument(self.document);
      return res.writeHead(200, { ...headers, 'content-type': encoding === 'json' ? 'application/json' : PROTOBUF_TYPE }).end(body);
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return self;
}

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await request(url, { method, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** Waits for a condition a loaded machine may reach slowly (no timing asserted). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 30_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the merged /openapi/v2 through the port (stand-in servers of two releases, the older pinned)', () => {
  let older: StandIn;
  let newer: StandIn;
  let core: Core;
  let faithful: Core;
  let base: string;
  let faithfulBase: string;
  const events: RoutingEvent[] = [];

  beforeAll(async () => {
    older = await standIn('v1.36.3', OLDER);
    newer = await standIn('v1.37.2', NEWER);
    const servers = [
      { name: 'old', url: older.url },
      { name: 'new', url: newer.url },
    ];
    core = createCore({ servers, listen: { port: 0 }, policy: { kind: 'pin', server: 'old' } });
    core.telemetry.subscribe((e) => events.push(e));
    base = (await core.start()).url;
    faithful = createCore({ servers, listen: { port: 0 }, policy: { kind: 'pin', server: 'old' }, faithful: true });
    faithfulBase = (await faithful.start()).url;
  });
  afterAll(async () => {
    await core?.close(0);
    await faithful?.close(0);
    await older?.close();
    await newer?.close();
  });

  it("JSON: the union of both releases (the newer wins a shared name), answered by the port with the servers' caching headers", async () => {
    const res = await get(`${base}/openapi/v2`, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers['x-peerscope-route']).toBe('handling=old; answering=-; outcome=discovery-merged');
    expect(res.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-cache, private', vary: 'Accept' });
    expect(res.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(Number.isNaN(Date.parse(res.headers['last-modified'] as string))).toBe(false);
    const doc = readJsonDocument(res.body.toString());
    expect(doc.version).toBe('1.37');
    expect(doc.paths).toEqual(MERGED_PATHS);
    expect(doc.definitions).toEqual(MERGED_DEFINITIONS);
    await until('the routing event', async () => events.find((e) => e.path === '/openapi/v2'));
    expect(events.find((e) => e.path === '/openapi/v2')).toMatchObject({ outcome: 'discovery-merged', handling: 'old', status: 200 });
  });

  it("protobuf (client-go's Accept): the same union as gnostic's Document", async () => {
    const res = await get(`${base}/openapi/v2`, { accept: PROTOBUF_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PROTOBUF_TYPE);
    expect(res.headers['x-peerscope-route']).toBe('handling=old; answering=-; outcome=discovery-merged');
    const doc = readProtobufDocument(res.body);
    expect(doc.version).toBe('1.37');
    expect(doc.paths).toEqual(MERGED_PATHS);
    expect(doc.definitions).toEqual(MERGED_DEFINITIONS);
  });

  it('304 for If-None-Match (the ETag, a list holding it, or *) and HEAD without a body; each server read once per form', async () => {
    for (const accept of ['application/json', PROTOBUF_ACCEPT]) {
      const first = await get(`${base}/openapi/v2`, { accept });
      const etag = first.headers.etag as string;
      for (const ifNoneMatch of [etag, `"other", ${etag}`, '*']) {
        const again = await get(`${base}/openapi/v2`, { accept, 'if-none-match': ifNoneMatch });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        expect(again.headers['x-peerscope-route']).toBe('handling=old; answering=-; outcome=discovery-merged');
      }
      const head = await get(`${base}/openapi/v2`, { accept }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(first.body.length));
    }
    // However many requests and however slow the machine: a revalidation is a 304, never a second read.
    expect(older.fullReads).toEqual({ json: 1, protobuf: 1 });
    expect(newer.fullReads).toEqual({ json: 1, protobuf: 1 });
  });

  it("a server's changed document (a CRD's schema) is in the merged one after its revalidation, with a new ETag", async () => {
    const before = await get(`${base}/openapi/v2`, { accept: PROTOBUF_ACCEPT });
    newer.document = { ...NEWER, definitions: { ...NEWER.definitions, 'io.example.v1.Widget': 'Widget (a CRD)' } };
    const after = await until('the changed document', async () => {
      const res = await get(`${base}/openapi/v2`, { accept: PROTOBUF_ACCEPT });
      return 'io.example.v1.Widget' in readProtobufDocument(res.body).definitions ? res : undefined;
    });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(readProtobufDocument(after.body).definitions['io.example.v1.Widget']).toBe('Widget (a CRD)');
    newer.document = NEWER;
  });

  it("a form the servers do not serve gets the handling server's own 406", async () => {
    const res = await get(`${base}/openapi/v2`, { accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(res.headers['x-peerscope-route']).toBe('handling=old; answering=old; outcome=non-resource');
  });

  it("--faithful: the handling server's own document, as on the servers' own MVP", async () => {
    for (const accept of ['application/json', PROTOBUF_ACCEPT]) {
      const res = await get(`${faithfulBase}/openapi/v2`, { accept });
      expect(res.status).toBe(200);
      expect(res.headers['x-peerscope-route']).toBe('handling=old; answering=old; outcome=non-resource');
      const doc = accept === PROTOBUF_ACCEPT ? readProtobufDocument(res.body) : readJsonDocument(res.body.toString());
      expect(doc.paths).toEqual(OLDER.paths);
    }
  });
});
