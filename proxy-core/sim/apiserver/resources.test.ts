// CRUD on the shared store through two simulated apiservers of different releases, and every bad
// input getting kube-apiserver's Status without taking a server down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { callServer, type TestRequest } from '../../test/sim-client.js';

const JSON_TYPE = { 'content-type': 'application/json' };

describe('resources of the simulated apiservers', () => {
  let cluster: SimCluster;
  const call = (server: number, path: string, opts: TestRequest = {}) =>
    callServer(cluster, cluster.servers[server]?.info().url as string, path, opts);
  const post = (server: number, path: string, body: unknown) =>
    call(server, path, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body) });

  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
  });
  afterAll(() => cluster?.close());

  it('every response names the server; an object created through one server is read through the other', async () => {
    const created = await post(0, '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared' },
      data: { a: '1' },
    });
    expect(created.status).toBe(201);
    expect(created.headers['x-simulated-apiserver']).toBe('sim-1');
    const read = await call(1, '/api/v1/namespaces/default/configmaps/shared');
    expect(read.status).toBe(200);
    expect(read.headers['x-simulated-apiserver']).toBe('sim-2');
    expect(read.json()).toMatchObject({
      kind: 'ConfigMap',
      data: { a: '1' },
      metadata: { uid: created.json<{ metadata: { uid: string } }>().metadata.uid },
    });
  });

  it("the request path's version decides apiVersion of a shared object", async () => {
    const res = await post(0, '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h' },
      spec: { maxReplicas: 3 },
    });
    expect(res.status).toBe(201);
    const v1 = await call(1, '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/h');
    expect(v1.json()).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' });
  });

  it('lists with selectors, limit and continue, across namespaces and per namespace', async () => {
    for (const [ns, name, tier] of [
      ['a', 'p1', 'web'],
      ['a', 'p2', 'db'],
      ['b', 'p3', 'web'],
    ] as const) {
      expect(
        (
          await post(0, `/api/v1/namespaces/${ns}/pods`, {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, labels: { tier } },
            spec: { containers: [{ name: 'c', image: 'x' }] },
          })
        ).status,
      ).toBe(201);
    }
    const all = (await call(0, '/api/v1/pods')).json<{
      kind: string;
      metadata: { resourceVersion: string };
      items: { metadata: { name: string } }[];
    }>();
    expect(all.kind).toBe('PodList');
    expect(all.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(all.items.map((p) => p.metadata.name)).toEqual(['p1', 'p2', 'p3']);
    const names = async (q: string) =>
      (await call(1, `/api/v1/pods?${q}`)).json<{ items: { metadata: { name: string } }[] }>().items.map((p) => p.metadata.name);
    expect(await names('labelSelector=tier%3Dweb')).toEqual(['p1', 'p3']);
    expect(await names('labelSelector=tier%20notin%20(web)')).toEqual(['p2']);
    expect(await names('fieldSelector=metadata.namespace%3Db')).toEqual(['p3']);
    expect(await names('fieldSelector=metadata.name!%3Dp1')).toEqual(['p2', 'p3']);
    const page1 = (await call(0, '/api/v1/pods?limit=2')).json<{
      metadata: { continue: string; remainingItemCount: number };
      items: unknown[];
    }>();
    expect(page1.items).toHaveLength(2);
    expect(page1.metadata.remainingItemCount).toBe(1);
    expect(await names(`limit=2&continue=${page1.metadata.continue}`)).toEqual(['p3']);
    const inA = (await call(0, '/api/v1/namespaces/a/pods')).json<{ items: unknown[] }>();
    expect(inA.items).toHaveLength(2);
  });

  it('update, merge/strategic/json patch, generation, generateName', async () => {
    const made = (
      await post(0, '/apis/apps/v1/namespaces/default/deployments', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { generateName: 'web-' },
        spec: { replicas: 1 },
        status: { replicas: 9 },
      })
    ).json<{ metadata: { name: string; resourceVersion: string; generation: number }; status?: unknown }>();
    expect(made.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(made.status).toBeUndefined();
    const path = `/apis/apps/v1/namespaces/default/deployments/${made.metadata.name}`;
    const merged = await call(1, path, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 3 } }),
    });
    expect(merged.json()).toMatchObject({ spec: { replicas: 3 }, metadata: { generation: 2 } });
    const strategic = await call(0, path, {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({ metadata: { labels: { a: 'b' } } }),
    });
    expect(strategic.json()).toMatchObject({ metadata: { labels: { a: 'b' }, generation: 2 } });
    const jsonPatch = await call(0, path, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 5 }]),
    });
    expect(jsonPatch.json()).toMatchObject({ spec: { replicas: 5 }, metadata: { generation: 3 } });
    const current = jsonPatch.json<Record<string, unknown>>();
    const put = await call(1, path, {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ ...current, spec: { replicas: 7 }, status: { replicas: 100 } }),
    });
    expect(put.status).toBe(200);
    expect(put.json()).toMatchObject({ spec: { replicas: 7 } });
    expect(put.json().status).toBeUndefined();
  });

  it('the status subresource changes only .status', async () => {
    const made = (
      await post(0, '/apis/apps/v1/namespaces/default/deployments', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'st' },
        spec: { replicas: 1 },
      })
    ).json<Record<string, unknown>>();
    const res = await call(0, '/apis/apps/v1/namespaces/default/deployments/st/status', {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ ...made, spec: { replicas: 50 }, status: { readyReplicas: 1 } }),
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ spec: { replicas: 1 }, status: { readyReplicas: 1 }, metadata: { generation: 1 } });
    const patched = await call(1, '/apis/apps/v1/namespaces/default/deployments/st/status', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ status: { replicas: 1 }, spec: { replicas: 9 } }),
    });
    expect(patched.json()).toMatchObject({ spec: { replicas: 1 }, status: { readyReplicas: 1, replicas: 1 } });
  });

  it('server-side apply creates, then merges', async () => {
    const path = '/api/v1/namespaces/default/configmaps/ssa?fieldManager=test';
    const yaml = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  v: "${v}"\n`;
    const first = await call(0, path, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, body: yaml('1') });
    expect(first.status).toBe(201);
    const second = await call(1, path, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, body: yaml('2') });
    expect(second.status).toBe(200);
    expect(second.json()).toMatchObject({ data: { v: '2' } });
  });

  it('delete returns a Success Status; deletecollection returns the deleted list', async () => {
    const del = await call(0, '/api/v1/namespaces/default/configmaps/ssa', { method: 'DELETE' });
    expect(del.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'ssa', kind: 'configmaps' } });
    const coll = await call(1, '/api/v1/namespaces/a/pods?labelSelector=tier%3Dweb', { method: 'DELETE' });
    expect(coll.json<{ kind: string; items: { metadata: { name: string } }[] }>()).toMatchObject({
      kind: 'PodList',
      items: [{ metadata: { name: 'p1' } }],
    });
    expect((await call(0, '/api/v1/namespaces/a/pods/p2')).status).toBe(200);
  });

  it('every bad input gets its Status and no server goes down', async () => {
    const cases: {
      name: string;
      run: () => ReturnType<typeof call>;
      code: number;
      reason: string;
      message?: string;
      details?: Record<string, unknown>;
    }[] = [
      {
        name: 'unknown GVR',
        run: () => call(0, '/apis/lifecycle.k8s.io/v1alpha1/evictionrequests'),
        code: 404,
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
      },
      {
        name: 'unknown resource in a served group',
        run: () => call(0, '/api/v1/flowerpots'),
        code: 404,
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
      },
      {
        name: 'missing core object',
        run: () => call(0, '/api/v1/namespaces/default/pods/x'),
        code: 404,
        reason: 'NotFound',
        message: 'pods "x" not found',
        details: { name: 'x', kind: 'pods' },
      },
      {
        name: 'missing grouped object',
        run: () => call(1, '/apis/apps/v1/namespaces/default/deployments/nope'),
        code: 404,
        reason: 'NotFound',
        message: 'deployments.apps "nope" not found',
        details: { name: 'nope', group: 'apps', kind: 'deployments' },
      },
      {
        name: 'create of an existing name',
        run: () => post(1, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' } }),
        code: 409,
        reason: 'AlreadyExists',
        message: 'configmaps "shared" already exists',
      },
      {
        name: 'stale resourceVersion',
        run: () =>
          call(0, '/api/v1/namespaces/default/configmaps/shared', {
            method: 'PUT',
            headers: JSON_TYPE,
            body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', resourceVersion: '1' } }),
          }),
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on configmaps "shared": the object has been modified; please apply your changes to the latest version and try again',
      },
      {
        name: 'malformed JSON',
        run: () => call(0, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: JSON_TYPE, body: '{"apiVersion": ' }),
        code: 400,
        reason: 'BadRequest',
      },
      {
        name: 'wrong apiVersion',
        run: () => post(0, '/api/v1/namespaces/default/configmaps', { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'w' } }),
        code: 400,
        reason: 'BadRequest',
      },
      {
        name: 'wrong kind',
        run: () => post(0, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'w' } }),
        code: 400,
        reason: 'BadRequest',
      },
      {
        name: 'oversized body',
        run: () =>
          call(0, '/api/v1/namespaces/default/configmaps', {
            method: 'POST',
            headers: JSON_TYPE,
            body: JSON.stringify({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'big' },
              data: { x: 'a'.repeat(3 * 1024 * 1024) },
            }),
          }),
        code: 413,
        reason: 'RequestEntityTooLarge',
      },
      {
        name: 'unsupported method',
        run: () => call(0, '/api/v1/namespaces/default/configmaps', { method: 'PUT', headers: JSON_TYPE, body: '{}' }),
        code: 405,
        reason: 'MethodNotAllowed',
      },
      {
        name: 'verb the catalog does not list',
        run: () => call(0, '/api/v1/namespaces/default/bindings'),
        code: 405,
        reason: 'MethodNotAllowed',
      },
      { name: 'missing token', run: () => call(0, '/api/v1/pods', { auth: false }), code: 401, reason: 'Unauthorized' },
      {
        name: 'wrong token',
        run: () => call(1, '/apis', { headers: { authorization: 'Bearer nope' } }),
        code: 401,
        reason: 'Unauthorized',
      },
      { name: 'bad label selector', run: () => call(0, '/api/v1/pods?labelSelector=a%20in%20(b'), code: 400, reason: 'BadRequest' },
      {
        name: 'bad patch type',
        run: () =>
          call(0, '/api/v1/namespaces/default/configmaps/shared', {
            method: 'PATCH',
            headers: { 'content-type': 'text/plain' },
            body: 'x',
          }),
        code: 415,
        reason: 'UnsupportedMediaType',
      },
    ];
    for (const c of cases) {
      const res = await c.run();
      expect(res.status, c.name).toBe(c.code);
      expect(res.headers['content-type'], c.name).toBe('application/json');
      const status = res.json();
      expect(status, c.name).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: c.code, reason: c.reason });
      if (c.message) expect(status.message, c.name).toBe(c.message);
      if (c.details) expect(status.details, c.name).toEqual(c.details);
    }
    for (const i of [0, 1]) expect((await call(i, '/api/v1/namespaces/default/configmaps/shared')).status).toBe(200);
  });
  it('an answer about a deprecated API the server serves carries its Warning (299), errors too; no other does', async () => {
    const deprecated = '/apis/storage.k8s.io/v1beta1/volumeattributesclasses';
    const warning = '299 - "storage.k8s.io/v1beta1 VolumeAttributesClass is deprecated, unavailable in v1.37+"';
    const list = await call(0, deprecated);
    expect(list.status).toBe(200);
    expect(list.headers['warning']).toBe(warning);
    const missing = await call(0, `${deprecated}/no-such-class`);
    expect(missing.status).toBe(404);
    expect(missing.headers['warning']).toBe(warning);
    // The same resource in its current version, and the newer server that no longer serves the old one.
    expect((await call(0, '/apis/storage.k8s.io/v1/volumeattributesclasses')).headers['warning']).toBeUndefined();
    const gone = await call(1, deprecated);
    expect(gone.status).toBe(404);
    expect(gone.headers['warning']).toBeUndefined();
  });
});
