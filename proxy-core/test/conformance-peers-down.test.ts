// Conformance cases (docs/mixed-version-proxy-rules.md §7) on real sockets where a server lacks something or
// is down: C14 (no v1 pods on H), C5/C40 and C7 (B down after or before discovery was read), C48 (pinned H not ready).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../engine/core.js';
import { MEDIA } from '../engine/discovery/types.js';
import { A_GVRS, B_GVRS, eventually, startBed, type Bed } from './harness.js';
import { NOT_FOUND, rawUpgrade } from './conformance-fixtures.js';

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
      await eventually(() => bed.core.servers.health('A') !== 'ready', 'A to be seen not ready');
      const r = await bed.get('/apis/apps/v1/deployments');
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', message: 'the pinned apiserver "A" is not ready' });
      expect(r.route()).toBe('handling=-; answering=-; outcome=unavailable');
    } finally {
      await bed.close();
    }
  });
});
