// The conformance cases C1–C48 (docs/mixed-version-proxy-rules.md) on real sockets: simulated
// apiservers A, B, C, D with exactly the GVRs the cases give them, and the local port in front.
// Cases decided by the pure decision alone are also in proxy-core/src/routing/conformance-*.test.ts.
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../src/core.js';
import { MEDIA } from '../src/discovery/types.js';
import { A_GVRS, B_GVRS, C_GVRS, D_GVRS, eventually, pickCatalog, startBed, type Bed } from './harness.js';
import { seededRandom } from '../src/util/seeded-random.js';

const NOT_FOUND = 'the server could not find the requested resource';

function seenBy(bed: Bed) {
  const seen: { server: string; url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const off = bed.sim.onRequest((server, req) => seen.push({ server, url: req.url, headers: req.headers }));
  return { seen, off, last: (path: string) => [...seen].reverse().find((s) => s.url.startsWith(path)) };
}

describe('conformance: A and B up', () => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed({ A: A_GVRS, B: B_GVRS });
  });
  afterAll(() => bed?.close());
  const pin = (s: string) => bed.core.setPolicy({ kind: 'pin', server: s });

  it('C1: a GVR H serves is served by H', async () => {
    pin('A');
    const r = await bed.get('/apis/apps/v1/namespaces/d/deployments/web');
    expect(r.status).toBe(404); // no such object yet: A's own answer, not a routing 404
    expect(r.json<{ reason: string }>().reason).toBe('NotFound');
    expect(r.route()).toBe('handling=A; answering=A; outcome=local');
  });

  it('C2: a GVR only B serves is rerouted to B with x-kubernetes-peer-proxied: true', async () => {
    pin('A');
    const probe = seenBy(bed);
    const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses');
    probe.off();
    expect(r.status).toBe(200);
    expect(r.json<{ kind: string }>().kind).toBe('DeviceClassList');
    expect(r.route()).toBe('handling=A; answering=B; outcome=rerouted');
    const atB = probe.last('/apis/resource.k8s.io/v1/deviceclasses');
    expect(atB?.server).toBe('B');
    expect(atB?.headers['x-kubernetes-peer-proxied']).toBe('true');
    expect(r.headers['x-simulated-apiserver']).toBe('B');
  });

  it('C3: B serves it locally', async () => {
    pin('B');
    const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses');
    expect(r.status).toBe(200);
    expect(r.route()).toBe('handling=B; answering=B; outcome=local');
  });

  it("C4: nobody serves it: A's own 404 Status", async () => {
    pin('A');
    const r = await bed.get('/apis/resource.k8s.io/v1alpha3/deviceclasses');
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', message: NOT_FOUND });
    expect(r.route()).toBe('handling=A; answering=A; outcome=notfound');
  });

  it('C8: a client-sent x-kubernetes-peer-proxied: true forces local serving (loop guard)', async () => {
    pin('A');
    const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses', { 'x-kubernetes-peer-proxied': 'true' });
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({ reason: 'NotFound', message: NOT_FOUND });
    expect(r.route()).toBe('handling=A; answering=A; outcome=local');
  });

  it('C9: X-Kubernetes-APIServer-Rerouted is an ordinary header', async () => {
    pin('A');
    const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses', { 'X-Kubernetes-APIServer-Rerouted': 'true' });
    expect(r.route()).toBe('handling=A; answering=B; outcome=rerouted');
  });

  it('C10, C11: subresources route by their resource', async () => {
    pin('A');
    const put = await bed.send(
      'PUT',
      '/apis/apps/v1/namespaces/d/deployments/web/status',
      { 'content-type': 'application/json' },
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'd' } }),
    );
    expect(put.route()).toBe('handling=A; answering=A; outcome=local');
    pin('B');
    const scale = await bed.get('/apis/apps/v1/namespaces/d/deployments/web/scale');
    expect(scale.route()).toBe('handling=B; answering=B; outcome=local');
  });

  it('C15, C16: both watch forms of a B-only GVR are rerouted and relayed as a stream', async () => {
    pin('A');
    for (const path of ['/apis/resource.k8s.io/v1/deviceclasses?watch=true', '/apis/resource.k8s.io/v1/watch/deviceclasses']) {
      const controller = new AbortController();
      const res = await request(`${bed.url}${path}`, { signal: controller.signal });
      expect(res.headers['x-peerscope-route']).toBe('handling=A; answering=B; outcome=rerouted');
      const name = `gpu-${Math.random().toString(36).slice(2, 8)}`;
      const created = await bed.send(
        'POST',
        '/apis/resource.k8s.io/v1/deviceclasses',
        { 'content-type': 'application/json' },
        JSON.stringify({ apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name } }),
      );
      expect(created.status).toBe(201);
      let text = '';
      for await (const chunk of res.body) {
        text += chunk.toString();
        if (text.includes(name)) break;
      }
      controller.abort();
      expect(text).toContain('"type":"ADDED"');
    }
  });

  it('C17–C20: namespaced, cluster-scoped, all-namespace lists and deletecollection are rerouted', async () => {
    pin('A');
    for (const [method, path] of [
      ['GET', '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims/x'],
      ['GET', '/apis/resource.k8s.io/v1/deviceclasses/gpu'],
      ['GET', '/apis/resource.k8s.io/v1beta1/resourceclaims'],
      ['DELETE', '/apis/resource.k8s.io/v1beta1/namespaces/d/resourceclaims'],
    ] as const) {
      const r = await bed.send(method, path);
      expect(r.route(), `${method} ${path}`).toBe('handling=A; answering=B; outcome=rerouted');
    }
  });

  it('C21–C24: non-resource paths are served by H', async () => {
    pin('A');
    for (const path of ['/healthz', '/livez', '/readyz', '/version', '/openapi/v2', '/openapi/v3']) {
      const r = await bed.get(path);
      expect(r.route(), path).toBe('handling=A; answering=A; outcome=non-resource');
      expect(r.headers['x-simulated-apiserver']).toBe('A');
    }
    expect((await bed.get('/version')).json<{ gitVersion: string }>().gitVersion).toBe('v1.37.0-dev');
  });

  it('C25, C28: /apis with the v2 Accept is merged across servers, with ETag', async () => {
    pin('A');
    for (const accept of [MEDIA.v2Json, `${MEDIA.v2Json};profile=foo`]) {
      const r = await bed.get('/apis', { accept });
      expect(r.status).toBe(200);
      expect(r.route()).toBe('handling=A; answering=-; outcome=discovery-merged');
      expect(r.headers['content-type']).toBe(MEDIA.v2Json);
      expect(r.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
      const groups = r.json<{
        items: { metadata: { name: string }; versions: { version: string; resources: { resource: string }[] }[] }[];
      }>().items;
      const resource = groups.find((g) => g.metadata.name === 'resource.k8s.io');
      expect(resource?.versions.map((v) => [v.version, v.resources.map((x) => x.resource)])).toEqual([
        ['v1', ['deviceclasses']],
        ['v1beta1', ['resourceclaims']],
      ]);
      expect(groups.some((g) => g.metadata.name === 'apps')).toBe(true);
    }
  });

  it('C45: If-None-Match with the merged ETag gets 304 and no body', async () => {
    pin('A');
    const first = await bed.get('/apis', { accept: MEDIA.v2Json });
    const again = await bed.get('/apis', { accept: MEDIA.v2Json, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it("C26: profile=nopeer answers with H's own document", async () => {
    pin('A');
    const r = await bed.get('/apis', { accept: MEDIA.v2JsonNoPeer });
    expect(r.route()).toBe('handling=A; answering=A; outcome=discovery-own');
    const groups = r.json<{ items: { metadata: { name: string } }[] }>().items.map((g) => g.metadata.name);
    expect(groups).not.toContain('resource.k8s.io');
  });

  it("C30, C31, C32: legacy discovery and /api are H's own, never merged", async () => {
    pin('A');
    const legacy = await bed.get('/apis', { accept: 'application/json' });
    expect(legacy.json<{ kind: string; groups: { name: string }[] }>().kind).toBe('APIGroupList');
    expect(legacy.json<{ groups: { name: string }[] }>().groups.map((g) => g.name)).not.toContain('resource.k8s.io');
    const gv = await bed.get('/apis/resource.k8s.io/v1');
    expect(gv.status).toBe(404);
    expect(gv.json()).toMatchObject({ reason: 'NotFound', message: NOT_FOUND });
    expect(gv.route()).toBe('handling=A; answering=A; outcome=non-resource');
    const api = await bed.get('/api', { accept: MEDIA.v2Json });
    expect(api.headers['x-simulated-apiserver']).toBe('A');
    expect((await bed.get('/api/v1')).headers['x-simulated-apiserver']).toBe('A');
  });

  it('C41: client-sent X-Remote-* headers are stripped before forwarding', async () => {
    pin('A');
    const probe = seenBy(bed);
    await bed.get('/apis/resource.k8s.io/v1/deviceclasses', {
      'X-Remote-User': 'admin',
      'X-Remote-Group': 'system:masters',
      'X-Remote-Extra-Scopes': 'all',
    });
    probe.off();
    const atB = probe.last('/apis/resource.k8s.io/v1/deviceclasses');
    expect(atB?.server).toBe('B');
    expect(Object.keys(atB?.headers ?? {}).filter((h) => h.toLowerCase().startsWith('x-remote-'))).toEqual([]);
  });

  it('C42: a foreign Host header is refused with 403 and nothing is forwarded', async () => {
    const probe = seenBy(bed);
    const r = await bed.get('/api/v1/pods', { host: 'evil.example:8001' });
    probe.off();
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: 'Host header "evil.example:8001" is not allowed' });
    expect(r.route()).toBe('handling=-; answering=-; outcome=rejected');
    expect(probe.seen.filter((s) => s.url.startsWith('/api/v1/pods'))).toEqual([]);
  });

  it("C44: /api/v1/namespaces/foo/status is the namespace's status subresource", async () => {
    pin('B');
    const r = await bed.get('/api/v1/namespaces/foo/status');
    expect(r.route()).toBe('handling=B; answering=B; outcome=local');
  });

  it('C47: pin:B sends everything to B', async () => {
    pin('B');
    const r = await bed.get('/apis/apps/v1/deployments');
    expect(r.route()).toBe('handling=B; answering=B; outcome=local');
  });

  it('C12: pods/log with follow=true is served by H and streamed', async () => {
    pin('A');
    await bed.send(
      'POST',
      '/api/v1/namespaces/d/pods',
      { 'content-type': 'application/json' },
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' } }),
    );
    const controller = new AbortController();
    const res = await request(`${bed.url}/api/v1/namespaces/d/pods/p/log?follow=true`, { signal: controller.signal });
    expect(res.headers['x-peerscope-route']).toBe('handling=A; answering=A; outcome=local');
    for await (const chunk of res.body) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    controller.abort();
  });

  it('C13: an exec upgrade is tunnelled to H', async () => {
    pin('A');
    const reply = await rawUpgrade(bed.url, '/api/v1/namespaces/d/pods/p/exec?command=sh', 'hello through the tunnel');
    expect(reply.head).toMatch(/^HTTP\/1\.1 101/);
    expect(reply.head.toLowerCase()).toContain('x-peerscope-route: handling=a; answering=a; outcome=local');
    expect(reply.data).toContain('hello through the tunnel');
  });
});

describe('conformance: a server without v1 pods (C14)', () => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed({ A: A_GVRS.filter((g) => g !== '/v1/pods'), B: B_GVRS });
  });
  afterAll(() => bed?.close());

  it('C14: an exec upgrade is rerouted to B and tunnelled through', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
    const pod = await bed.send(
      'POST',
      '/api/v1/namespaces/d/pods',
      { 'content-type': 'application/json' },
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' } }),
    );
    expect(pod.route()).toBe('handling=A; answering=B; outcome=rerouted');
    const reply = await rawUpgrade(bed.url, '/api/v1/namespaces/d/pods/p/exec?command=sh', 'echo me');
    expect(reply.head).toMatch(/^HTTP\/1\.1 101/);
    expect(reply.head.toLowerCase()).toContain('outcome=rerouted');
    expect(reply.data).toContain('echo me');
  });
});

describe('conformance: peers going down', () => {
  it('C5/C40: B down after its discovery was read stays a candidate: 503 Status naming the cause', async () => {
    const bed = await startBed({ A: A_GVRS, B: B_GVRS });
    try {
      bed.core.setPolicy({ kind: 'pin', server: 'A' });
      await bed.sim.server('B').stop();
      const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses');
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
      expect(r.json<{ message: string }>().message).toMatch(/^Error while proxying request to destination apiserver: /);
      expect(r.route()).toBe('handling=A; answering=-; outcome=unavailable');
      // The merged /apis still lists B's groups (C40).
      const merged = await bed.get('/apis', { accept: MEDIA.v2Json });
      expect(merged.json<{ items: { metadata: { name: string } }[] }>().items.map((g) => g.metadata.name)).toContain('resource.k8s.io');
    } finally {
      await bed.close();
    }
  });

  it("C7: B down while the peer cache was built is no candidate: A's own 404", async () => {
    const bed = await startBed({ A: A_GVRS, B: B_GVRS });
    try {
      await bed.sim.server('B').stop();
      // A second core started now never reads B, as A's cache built while B was down.
      const core = createCore({
        servers: bed.sim.servers.map((s) => ({ name: s.name, url: s.info().url })),
        listen: { port: 0 },
        policy: { kind: 'pin', server: 'A' },
      });
      const addr = await core.start();
      try {
        const res = await request(`${addr.url}/apis/resource.k8s.io/v1/deviceclasses`);
        const body = JSON.parse(await res.body.text()) as { reason: string; message: string };
        expect(res.statusCode).toBe(404);
        expect(body).toMatchObject({ reason: 'NotFound', message: NOT_FOUND });
        expect(res.headers['x-peerscope-route']).toBe('handling=A; answering=A; outcome=notfound');
      } finally {
        await core.close(0);
      }
    } finally {
      await bed.close();
    }
  });

  it('C48: pin:A with A not ready answers 503 from Peerscope', async () => {
    const bed = await startBed({ A: A_GVRS, B: B_GVRS });
    try {
      bed.core.setPolicy({ kind: 'pin', server: 'A' });
      void bed.sim.server('A').drain(60_000);
      await eventually(() => bed.core.peers.health('A') !== 'ready', 'A to be seen not ready');
      const r = await bed.get('/apis/apps/v1/deployments');
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', message: 'the pinned apiserver "A" is not ready' });
      expect(r.route()).toBe('handling=-; answering=-; outcome=unavailable');
    } finally {
      await bed.close();
    }
  });
});

describe('conformance: A, B and C up', () => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed({ A: A_GVRS, B: B_GVRS, C: C_GVRS });
  });
  afterAll(() => bed?.close());

  it('C33: only C serves v1beta2: rerouted to C', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
    expect((await bed.get('/apis/resource.k8s.io/v1beta2/resourceclaims')).route()).toBe('handling=A; answering=C; outcome=rerouted');
  });

  it('C34: C lacks v1beta1: rerouted to B (versions compared exactly)', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'C' });
    expect((await bed.get('/apis/resource.k8s.io/v1beta1/resourceclaims')).route()).toBe('handling=C; answering=B; outcome=rerouted');
  });

  it('C35: the merged group lists v1, v1beta1 and v1beta2 in order-preserving merge order', async () => {
    bed.core.setPolicy({ kind: 'pin', server: 'A' });
    const items = (await bed.get('/apis', { accept: MEDIA.v2Json })).json<{
      items: { metadata: { name: string }; versions: { version: string }[] }[];
    }>().items;
    expect(items.find((g) => g.metadata.name === 'resource.k8s.io')?.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1beta2']);
  });
});

describe('conformance: A, B and D up', () => {
  it('C36: requests for a GVR two peers serve are spread uniformly at random', async () => {
    const random = seededRandom(42);
    const bed = await startBed({ A: A_GVRS, B: B_GVRS, D: D_GVRS }, { random, policy: { kind: 'pin', server: 'A' } });
    try {
      const counts: Record<string, number> = {};
      for (let i = 0; i < 1000; i++) {
        const r = await bed.get('/apis/resource.k8s.io/v1/deviceclasses');
        const answering = /answering=(\w+)/.exec(r.route())?.[1] ?? '?';
        counts[answering] = (counts[answering] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).toEqual(['B', 'D']);
      expect(counts.B).toBeGreaterThan(430);
      expect(counts.D).toBeGreaterThan(430);
    } finally {
      await bed.close();
    }
  });
});

describe('conformance: one server only (C46)', () => {
  it('C46: the merged /apis of a single server is its own list unchanged', async () => {
    const bed = await startBed({ A: A_GVRS });
    try {
      const merged = await bed.get('/apis', { accept: MEDIA.v2Json });
      const own = await bed.get('/apis', { accept: MEDIA.v2JsonNoPeer });
      expect(merged.json()).toEqual(own.json());
    } finally {
      await bed.close();
    }
  });
});

describe('the catalog picker used by these tests', () => {
  it('refuses a GVR the base release lacks', () => {
    expect(() => pickCatalog('x', ['nope.io/v1/things'])).toThrow('the base release has no nope.io/v1/things');
  });
});

/** Sends an Upgrade request on a raw socket, writes `payload` after the 101 and collects the echo. */
async function rawUpgrade(base: string, path: string, payload: string): Promise<{ head: string; data: string }> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`,
  );
  let buffer = '';
  let head = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer: ${JSON.stringify(buffer)}`));
    }, 5_000);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      if (!head) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = buffer.slice(0, end);
        buffer = buffer.slice(end + 4);
        if (!head.startsWith('HTTP/1.1 101')) {
          clearTimeout(timer);
          socket.destroy();
          return resolve({ head, data: buffer });
        }
        socket.write(payload);
      }
      if (buffer.includes(payload)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ head, data: buffer });
      }
    });
    socket.on('error', reject);
  });
}
