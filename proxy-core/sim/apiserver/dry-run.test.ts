// dryRun=All on every write: the answer is what would be stored, the store keeps nothing and no
// watch sees an event; another dryRun value is a 400 as kube-apiserver gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { callServer, type TestRequest } from '../../test/sim-client.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const PATH = '/api/v1/namespaces/default/configmaps';

describe('server-side dry run', () => {
  let cluster: SimCluster;
  const call = (path: string, opts: TestRequest = {}) => callServer(cluster, cluster.servers[0]?.info().url as string, path, opts);
  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.37-dev')] });
  });
  afterAll(() => cluster?.close());

  it('create, update, patch and delete with dryRun=All answer and change nothing', async () => {
    const revision = cluster.store.currentResourceVersion();
    const body = JSON.stringify({ metadata: { name: 'dry' }, data: { a: '1' } });
    const created = await call(`${PATH}?dryRun=All`, { method: 'POST', headers: JSON_TYPE, body });
    expect(created.status, created.body).toBe(201);
    expect(created.json()).toMatchObject({ metadata: { name: 'dry', uid: expect.any(String) }, data: { a: '1' } });
    expect((await call(`${PATH}/dry`)).status).toBe(404);
    expect(cluster.store.currentResourceVersion()).toBe(revision);

    expect((await call(PATH, { method: 'POST', headers: JSON_TYPE, body })).status).toBe(201);
    const stored = (await call(`${PATH}/dry`)).json<{ metadata: { resourceVersion: string } }>();
    const put = await call(`${PATH}/dry?dryRun=All`, {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ ...stored, data: { a: '2' } }),
    });
    expect(put.json()).toMatchObject({ data: { a: '2' }, metadata: { resourceVersion: stored.metadata.resourceVersion } });
    const patch = await call(`${PATH}/dry?dryRun=All`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"data":{"a":"3"}}',
    });
    expect(patch.json()).toMatchObject({ data: { a: '3' } });
    // Node's client sends a DELETE body without framing unless told its length.
    const options = '{"dryRun":["All"]}';
    const headers = { ...JSON_TYPE, 'content-length': String(options.length) };
    const deleted = await call(`${PATH}/dry`, { method: 'DELETE', headers, body: options });
    expect(deleted.status).toBe(200);
    expect((await call(`${PATH}/dry`)).json()).toMatchObject({ data: { a: '1' }, metadata: stored.metadata });
  });

  it('a dryRun value other than All is a 400', async () => {
    const r = await call(`${PATH}?dryRun=Some`, { method: 'POST', headers: JSON_TYPE, body: '{"metadata":{"name":"x"}}' });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ reason: 'BadRequest', message: 'dryRun: Unsupported value: "Some": supported values: "All"' });
  });
});
