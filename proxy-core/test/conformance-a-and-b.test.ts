// Conformance cases (docs/mixed-version-proxy-rules.md §7) on real sockets with simulated apiservers A and B
// up and the local port in front: local and rerouted requests, watches, non-resource paths, merged and own
// discovery, header stripping, the Host check, streamed logs and exec upgrades.
// Cases decided by the pure decision alone are also in proxy-core/engine/routing/conformance-*.test.ts.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA } from '../engine/discovery/types.js';
import { A_GVRS, B_GVRS, startBed, type Bed } from './harness.js';
import { NOT_FOUND, seenBy, rawUpgrade } from './conformance-fixtures.js';

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

  // /openapi/v3 and /openapi/v2 left this list on purpose (C24 default, P8: the port's merged documents; faithful: below).
  it('C21–C24: non-resource paths are served by H', async () => {
    pin('A');
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
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

  it("C30, C31, C32 default (P8): legacy /apis is merged, a group-version only B serves is B's own answer, /api stays A's", async () => {
    pin('A');
    const legacy = await bed.get('/apis', { accept: 'application/json' });
    expect(legacy.status).toBe(200);
    expect(legacy.route()).toBe('handling=A; answering=-; outcome=discovery-merged');
    const list = legacy.json<{ kind: string; groups: { name: string; versions: { groupVersion: string }[] }[] }>();
    expect(list.kind).toBe('APIGroupList');
    const resourceGroup = list.groups.find((g) => g.name === 'resource.k8s.io');
    expect(resourceGroup?.versions.map((v) => v.groupVersion).sort()).toEqual(['resource.k8s.io/v1', 'resource.k8s.io/v1beta1']);
    const again = await bed.get('/apis', { accept: 'application/json', 'if-none-match': String(legacy.headers.etag) });
    expect(again.status).toBe(304);
    const probe = seenBy(bed);
    const gv = await bed.get('/apis/resource.k8s.io/v1');
    probe.off();
    expect(gv.status).toBe(200);
    expect(gv.json<{ kind: string; groupVersion: string }>()).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'resource.k8s.io/v1',
    });
    expect(gv.route()).toBe('handling=A; answering=B; outcome=rerouted');
    expect(probe.last('/apis/resource.k8s.io/v1')?.headers['x-kubernetes-peer-proxied']).toBe('true');
    const group = await bed.get('/apis/resource.k8s.io');
    expect(group.json<{ kind: string }>().kind).toBe('APIGroup');
    expect(group.headers['x-simulated-apiserver']).toBe('B');
    const api = await bed.get('/api', { accept: MEDIA.v2Json });
    expect(api.headers['x-simulated-apiserver']).toBe('A');
    expect((await bed.get('/api/v1')).headers['x-simulated-apiserver']).toBe('A');
  });

  it('C24 default (P8): /openapi/v3 lists what only B serves; following its URL through the port reaches B', async () => {
    pin('A');
    const indexReply = await bed.get('/openapi/v3', { accept: 'application/json' });
    expect(indexReply.status).toBe(200);
    expect(indexReply.route()).toBe('handling=A; answering=-; outcome=discovery-merged');
    const paths = indexReply.json<{ paths: Record<string, { serverRelativeURL: string }> }>().paths;
    const url = paths['apis/resource.k8s.io/v1']?.serverRelativeURL ?? '';
    expect(url).toMatch(/^\/openapi\/v3\/apis\/resource\.k8s\.io\/v1\?hash=[0-9A-F]+$/);
    expect(paths['apis/apps/v1']).toBeDefined();
    const again = await bed.get('/openapi/v3', { accept: 'application/json', 'if-none-match': String(indexReply.headers.etag) });
    expect(again.status).toBe(304);
    const doc = await bed.get(url, { accept: 'application/json' });
    expect(doc.status).toBe(200);
    expect(doc.route()).toBe('handling=A; answering=B; outcome=rerouted');
    // The hash B put in the index is B's: B answers the document as immutable.
    expect(doc.headers['cache-control']).toBe('public, immutable');
    expect(doc.body).toContain('DeviceClass');
  });

  it("C24 default (P8): /openapi/v2 is one document holding what only B serves; a form the servers lack is A's own", async () => {
    pin('A');
    const merged = await bed.get('/openapi/v2', { accept: 'application/json' });
    expect(merged.status).toBe(200);
    expect(merged.route()).toBe('handling=A; answering=-; outcome=discovery-merged');
    const paths = Object.keys(merged.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths).toContain('/apis/resource.k8s.io/v1/deviceclasses');
    expect(paths).toContain('/apis/apps/v1/namespaces/{namespace}/deployments');
    const again = await bed.get('/openapi/v2', { accept: 'application/json', 'if-none-match': String(merged.headers.etag) });
    expect(again.status).toBe(304);
    // The simulated servers speak no protobuf (406): the port has nothing to merge and forwards.
    const proto = await bed.get('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(proto.status).toBe(406);
    expect(proto.route()).toBe('handling=A; answering=A; outcome=non-resource');
  });

  it("C24, C30, C31, C32 faithful: OpenAPI, legacy discovery and /api are H's own, never merged", async () => {
    const faithful = await startBed({ A: A_GVRS, B: B_GVRS }, { faithful: true, policy: { kind: 'pin', server: 'A' } });
    try {
      const legacy = await faithful.get('/apis', { accept: 'application/json' });
      expect(legacy.json<{ kind: string; groups: { name: string }[] }>().kind).toBe('APIGroupList');
      expect(legacy.json<{ groups: { name: string }[] }>().groups.map((g) => g.name)).not.toContain('resource.k8s.io');
      expect(legacy.route()).toBe('handling=A; answering=A; outcome=non-resource');
      const gv = await faithful.get('/apis/resource.k8s.io/v1');
      expect(gv.status).toBe(404);
      expect(gv.json()).toMatchObject({ reason: 'NotFound', message: NOT_FOUND });
      expect(gv.route()).toBe('handling=A; answering=A; outcome=non-resource');
      const api = await faithful.get('/api', { accept: MEDIA.v2Json });
      expect(api.headers['x-simulated-apiserver']).toBe('A');
      expect((await faithful.get('/api/v1')).headers['x-simulated-apiserver']).toBe('A');
      const openapi = await faithful.get('/openapi/v3', { accept: 'application/json' });
      expect(openapi.route()).toBe('handling=A; answering=A; outcome=non-resource');
      expect(Object.keys(openapi.json<{ paths: Record<string, unknown> }>().paths)).not.toContain('apis/resource.k8s.io/v1');
      expect((await faithful.get('/openapi/v3/apis/resource.k8s.io/v1')).status).toBe(404);
      const v2 = await faithful.get('/openapi/v2', { accept: 'application/json' });
      expect(v2.route()).toBe('handling=A; answering=A; outcome=non-resource');
      expect(Object.keys(v2.json<{ paths: Record<string, unknown> }>().paths)).not.toContain('/apis/resource.k8s.io/v1/deviceclasses');
      // The discovery toggle keeps its meaning: aggregated v2 is still merged.
      expect((await faithful.get('/apis', { accept: MEDIA.v2Json })).route()).toBe('handling=A; answering=-; outcome=discovery-merged');
    } finally {
      await faithful.close();
    }
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
