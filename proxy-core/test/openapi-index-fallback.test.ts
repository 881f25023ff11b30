// P8's merged /openapi/v3 needs the handling server's own index, read with Peerscope's credential.
// A server that has none (here a stand-in apiserver without OpenAPI) gives the client its own answer
// to the client's request, forwarded as a non-resource request: never an error of Peerscope's making.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../engine/core.js';
import { request } from 'undici';
import { startFakeApiserver, type FakeApiserver } from './fake-apiserver.js';

describe('the merged OpenAPI v3 index when the handling server has none', () => {
  let fake: FakeApiserver;
  let core: Core;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    fake = await startFakeApiserver(10);
    fake.server.prependListener('request', (req) => seen.push(`${req.headers['user-agent'] ?? ''} ${req.url ?? ''}`));
    core = createCore({ servers: [{ name: 'a', url: fake.url }], listen: { port: 0 } });
    base = (await core.start()).url;
  });
  afterAll(async () => {
    await core?.close(0);
    await fake?.close();
  });

  it("answers with the server's own 404 (outcome non-resource), and reads the index once per period, not per request", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${base}/openapi/v3`, { headers: { accept: 'application/json', 'user-agent': 'client' } });
      const body = (await res.body.json()) as { kind?: string; code?: number };
      expect(res.statusCode).toBe(404);
      expect(body).toMatchObject({ kind: 'Status', code: 404 });
      expect(res.headers['x-peerscope-route']).toBe('handling=a; answering=a; outcome=non-resource');
    }
    expect(seen.filter((s) => s === 'client /openapi/v3')).toHaveLength(3);
    expect(seen.filter((s) => !s.startsWith('client') && s.endsWith(' /openapi/v3'))).toHaveLength(1);
  });
});
