// What the simulated apiserver fills in as kube-apiserver does: a secret's type and its stringData
// folded into data, on create and on replace; a service's type, cluster IP and ports; a namespace's
// phase, finalizer and name label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { callServer } from '../../test/sim-client.js';

const JSON_TYPE = { 'content-type': 'application/json' };

describe('defaults on write', () => {
  let cluster: SimCluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.36-dev')] });
    url = cluster.servers[0]?.info().url as string;
  });
  afterAll(() => cluster?.close());

  it('a secret without a type is Opaque; stringData lands in data, base64, and is not kept', async () => {
    const path = '/api/v1/namespaces/default/secrets';
    const body = { metadata: { name: 's' }, data: { a: Buffer.from('1').toString('base64') }, stringData: { b: 'two' } };
    const created = await callServer(cluster, url, path, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body) });
    expect(created.status, created.body).toBe(201);
    const secret = created.json<Record<string, unknown>>();
    expect(secret.type).toBe('Opaque');
    expect(secret.stringData).toBeUndefined();
    expect(secret.data).toEqual({ a: 'MQ==', b: Buffer.from('two').toString('base64') });

    const replaced = await callServer(cluster, url, `${path}/s`, {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ ...secret, stringData: { a: 'one' } }),
    });
    expect(replaced.status, replaced.body).toBe(200);
    expect(replaced.json<Record<string, unknown>>().data).toEqual({ a: Buffer.from('one').toString('base64'), b: 'dHdv' });
  });

  it('a new service gets type ClusterIP, the next free cluster IP and its ports TCP to the same port', async () => {
    const post = (body: unknown) =>
      callServer(cluster, url, '/api/v1/namespaces/default/services', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body) });
    const first = await post({ metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } });
    expect(first.status, first.body).toBe(201);
    expect(first.json<{ spec: unknown }>().spec).toMatchObject({
      type: 'ClusterIP',
      clusterIP: '10.96.0.2', // 10.96.0.1 is the kubernetes Service's
      clusterIPs: ['10.96.0.2'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect((await post({ metadata: { name: 'b' }, spec: {} })).json<{ spec: { clusterIP: string } }>().spec.clusterIP).toBe('10.96.0.3');
    const external = (await post({ metadata: { name: 'c' }, spec: { type: 'ExternalName', externalName: 'example.com' } })).json<{
      spec: Record<string, unknown>;
    }>();
    expect(external.spec.clusterIP).toBeUndefined();
  });

  it('a new namespace is Active with the kubernetes finalizer and its name label', async () => {
    const created = await callServer(cluster, url, '/api/v1/namespaces', {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ metadata: { name: 'team', labels: { owner: 'a' } } }),
    });
    expect(created.json()).toMatchObject({
      metadata: { labels: { owner: 'a', 'kubernetes.io/metadata.name': 'team' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });
});
