// The control host on real sockets: who it refuses (no or wrong token, foreign Origin or Host), the
// CSP on every response, JSON calls validated both ways, and an SSE stream carrying routing batches
// of real requests through the local port of a simulated two-release control plane.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreEventSchema, overviewSchema, routeTableViewSchema, discoveryViewsSchema, type CoreEvent } from '../../contract/client.js';
import { MAX_SNAPSHOT_BYTES, routingSnapshotSchema, snapshotDiffSchema, snapshotReadResultSchema } from '../../contract/snapshot.js';
import { serializeSnapshot } from '../snapshot/io.js';
import { createCore, type Core } from '../core.js';
import { loadRelease } from '../releases/index.js';
import { startSimCluster, type SimCluster } from '../../sim/index.js';
import { CONTENT_SECURITY_POLICY, startControlServer, type ControlServer } from './server.js';
import { createCoreService, type CoreService } from './service.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(port: number, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...init.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('control host', () => {
  let sim: SimCluster;
  let core: Core;
  let service: CoreService;
  let control: ControlServer;
  let coreUrl: string;

  const rpc = (method: string, args: unknown = {}, headers: Record<string, string> = {}) =>
    call(control.port, `/api/rpc/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(args),
    });

  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    core = createCore({
      servers: sim.servers.map((s) => ({
        name: s.name,
        url: s.info().url,
        source: 'sim' as const,
        ca: sim.ca!,
        bearerToken: () => sim.token,
      })),
      listen: { port: 0 },
      probeIntervalMs: 200,
    });
    coreUrl = (await core.start()).url;
    service = createCoreService(core, { batchMs: 50 });
    const rendererDir = mkdtempSync(join(tmpdir(), 'peerscope-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Peerscope</title>');
    control = await startControlServer({ client: service, rendererDir });
  });

  afterAll(async () => {
    await control?.close();
    service?.close();
    await core?.close(0);
    await sim?.close();
  });

  it('prints a loopback URL with the token in its fragment', () => {
    expect(control.url).toBe(`http://127.0.0.1:${control.port}/#token=${control.token}`);
    expect(control.token.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses API calls without the token or with a wrong one', async () => {
    const missing = await call(control.port, '/api/rpc/getOverview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(401);
    const wrong = await rpc('getOverview', {}, { authorization: `Bearer ${control.token.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    const notBearer = await rpc('getOverview', {}, { authorization: control.token });
    expect(notBearer.status).toBe(401);
    const events = await call(control.port, '/api/events');
    expect(events.status).toBe(401);
  });

  it('refuses a foreign Origin and a foreign Host, even with the token', async () => {
    const foreignOrigin = await rpc('getOverview', {}, { origin: 'http://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    const otherPort = await rpc('getOverview', {}, { origin: `http://127.0.0.1:${control.port + 1}` });
    expect(otherPort.status).toBe(403);
    const rebinding = await rpc('getOverview', {}, { host: `evil.example:${control.port}` });
    expect(rebinding.status).toBe(403);
    const pageFromRebinding = await call(control.port, '/', { headers: { host: 'evil.example' } });
    expect(pageFromRebinding.status).toBe(403);
    const crossSite = await rpc('getOverview', {}, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await rpc('getOverview', {}, { origin: `http://127.0.0.1:${control.port}`, 'sec-fetch-site': 'same-origin' });
    expect(sameOrigin.status).toBe(200);
  });

  it('refuses whatever a web page could send it, on every path and method, the token notwithstanding (issue 20)', async () => {
    const port = control.port;
    const marks: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'NULL' },
      { origin: `http://localhost:${port}` },
      { origin: `https://127.0.0.1:${port}` },
      { origin: `http://127.0.0.1:${port}, http://evil.example` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'Cross-Site' },
      { 'sec-fetch-site': 'same-origin, cross-site' },
      { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' },
    ];
    const asked: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string }> = [
      { method: 'GET', path: '/api/events' },
      { method: 'POST', path: '/api/rpc/setTrafficRate', headers: { 'content-type': 'application/json' }, body: '{"rps":500}' },
      { method: 'POST', path: '/api/rpc/setPolicy', headers: { 'content-type': 'text/plain' }, body: '{"policy":"random"}' },
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/index.html' },
      { method: 'OPTIONS', path: '/api/rpc/getOverview' },
      { method: 'PUT', path: '/api/rpc/getOverview' },
    ];
    for (const a of asked) {
      for (const mark of marks) {
        const r = await call(port, a.path, {
          method: a.method,
          headers: { authorization: `Bearer ${control.token}`, ...a.headers, ...mark },
          ...(a.body ? { body: a.body } : {}),
        });
        expect(r.status, `${a.method} ${a.path} ${JSON.stringify(mark)}`).toBe(403);
      }
    }
    // Without a token, a form's text/plain POST or another method gets nothing either.
    expect(
      (await call(port, '/api/rpc/setPolicy', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"policy":"random"}' }))
        .status,
    ).toBe(401);
    expect(
      (
        await call(port, '/api/rpc/setPolicy', {
          method: 'POST',
          headers: { authorization: `Bearer ${control.token}`, 'content-type': 'text/plain' },
          body: '{"policy":"random"}',
        })
      ).status,
    ).toBe(415);
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) expect((await call(port, '/', { method })).status, method).toBe(405);
    expect((await call(port, '/api/rpc/getOverview', { method: 'DELETE' })).status).toBe(401);
    // None of it changed a setting.
    expect((await rpc('getOverview')).status).toBe(200);
    expect(JSON.parse((await rpc('getOverview')).body)).toMatchObject({ policy: 'round-robin' });
    // The page itself, opened from the URL typed or clicked in a terminal, and its own calls pass.
    expect((await call(port, '/', { headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } })).status).toBe(200);
    expect((await rpc('getOverview', {}, { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(
      (
        await call(port, '/', {
          headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin' },
        })
      ).status,
    ).toBe(200);
  });

  it('serves the renderer with the strict CSP, and the CSP on API answers too', async () => {
    const page = await call(control.port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(eval|inline)/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<title>Peerscope</title>');
    const refused = await call(control.port, '/api/rpc/getOverview', { method: 'POST' });
    expect(refused.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const traversal = await call(control.port, '/..%2f..%2fetc%2fpasswd');
    expect(traversal.status).toBe(404);
  });

  it('answers CoreClient calls with payloads that match the contract and carry no credential', async () => {
    const overview = await rpc('getOverview');
    expect(overview.status).toBe(200);
    const parsed = overviewSchema.parse(JSON.parse(overview.body));
    expect(parsed.servers.map((s) => s.name)).toEqual(['sim-1', 'sim-2']);
    expect(parsed.sim).toBeUndefined();
    const table = routeTableViewSchema.parse(JSON.parse((await rpc('getRouteTable')).body));
    expect(table.skewedCount).toBeGreaterThan(0);
    expect(table.columns.map((c) => c.gitVersion)).toEqual(['v1.36.0-dev', 'v1.37.0-dev']);
    const views = discoveryViewsSchema.parse(JSON.parse((await rpc('getDiscoveryViews')).body));
    expect(views.servers[0]!.onlyInMerged.length).toBeGreaterThan(0);
    for (const method of ['getOverview', 'getRouteTable', 'getDiscoveryViews', 'takeSnapshot', 'getHealthHistory']) {
      const body = (await rpc(method)).body;
      expect(body).not.toContain(sim.token!);
      expect(body).not.toContain('BEGIN CERTIFICATE');
    }
    const mode = await rpc('setDiscoveryMode', { mode: 'nopeer' });
    expect(JSON.parse(mode.body)).toMatchObject({ discoveryMode: 'nopeer' });
    expect(core.discoveryMode()).toBe('nopeer');
    await rpc('setDiscoveryMode', { mode: 'peer-aggregated' });
    expect((await rpc('setDiscoveryMode', { mode: 'sideways' })).status).toBe(400);
    expect((await rpc('setPolicy', { policy: 'pin:nobody' })).status).toBe(400);
    expect((await rpc('startRollout')).status).toBe(400);
    expect((await rpc('noSuchMethod')).status).toBe(404);
  });

  it('reads snapshot files and compares snapshots for the UI, with bodies as large as a snapshot can be', async () => {
    const taken = routingSnapshotSchema.parse(JSON.parse((await rpc('takeSnapshot')).body));
    // A snapshot of a large cluster: several MB of text, far over the 64 KiB of the other calls.
    const big = {
      ...taken,
      events: Array.from({ length: 20_000 }, (_, i) => ({
        ...(taken.events[0] ?? {
          at: 1,
          userAgent: 'kubectl/v1.32',
          method: 'GET',
          verb: 'list',
          path: '/api/v1/pods',
          group: '',
          version: 'v1',
          resource: 'pods',
          subresource: '',
          namespace: '',
          handling: 'sim-1',
          answeredBy: 'sim-1',
          outcome: 'local' as const,
          status: 200,
          latencyMs: 1,
          bytesIn: 0,
          bytesOut: 1,
        }),
        seq: i + 1,
      })),
    };
    const text = serializeSnapshot(big);
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    const read = snapshotReadResultSchema.parse(JSON.parse((await rpc('readSnapshot', { text, file: 'big.json' })).body));
    expect(read.ok && read.snapshot.events.length).toBe(20_000);
    const broken = snapshotReadResultSchema.parse(
      JSON.parse((await rpc('readSnapshot', { text: text.slice(0, 1000), file: 'cut.json' })).body),
    );
    expect(broken).toMatchObject({ ok: false, error: { file: 'cut.json', reason: 'syntax' } });
    const huge = snapshotReadResultSchema.parse(
      JSON.parse((await rpc('readSnapshot', { text: '', file: 'huge.json', size: 50 * 1024 * 1024 })).body),
    );
    expect(huge).toMatchObject({ ok: false, error: { reason: 'too-large' } });
    const after = { ...taken, servers: taken.servers.map((s) => ({ ...s, gitVersion: 'v1.37.0-dev' })) };
    const diff = snapshotDiffSchema.parse(JSON.parse((await rpc('compareSnapshots', { before: big, after })).body));
    expect(diff.servers.upgraded).toEqual([{ name: 'sim-1', from: 'v1.36.0-dev', to: 'v1.37.0-dev' }]);
    // Arguments are checked: a snapshot that is not one is a 400 naming the field.
    const bad = await rpc('compareSnapshots', { before: taken, after: { ...taken, kind: 'PodList' } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringContaining('after.kind'),
    });
    // The other calls keep their small limit; a snapshot call over its own limit gets a 413 it can show.
    expect((await rpc('setPolicy', { policy: 'x'.repeat(70 * 1024) })).status).toBe(413);
    const over = await rpc('readSnapshot', { text: 'x'.repeat(2 * MAX_SNAPSHOT_BYTES + 1024 * 1024), file: 'over.json' });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).error).toMatchObject({
      code: 'PEERSCOPE_ERR_BODY_TOO_LARGE',
      message: expect.stringMatching(/^the body exceeds \d+ bytes$/),
    });
  }, 60_000);

  it('streams routing events in batches over SSE', async () => {
    const events: CoreEvent[] = [];
    const controller = new AbortController();
    const response = await fetch(`${control.origin}/api/events`, {
      headers: { authorization: `Bearer ${control.token}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) events.push(coreEventSchema.parse(JSON.parse(data)));
        }
      }
    })().catch(() => undefined);
    // A GVR only v1.37 serves, asked many times: half land on sim-1 and are rerouted.
    const gvrOnlyNew = (await service.getRouteTable()).rows.find((r) => r.servers.length === 1 && r.servers[0] === 'sim-2')!;
    const path = gvrOnlyNew.group
      ? `/apis/${gvrOnlyNew.group}/${gvrOnlyNew.version}/${gvrOnlyNew.resource}`
      : `/api/${gvrOnlyNew.version}/${gvrOnlyNew.resource}`;
    for (let i = 0; i < 20; i++) await (await fetch(`${coreUrl}${path}`)).arrayBuffer();
    const deadline = Date.now() + 10_000;
    const routed = () => events.flatMap((e) => (e.type === 'routing' ? e.events : []));
    while (routed().length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await reading;
    expect(routed().length).toBe(20);
    const batches = events.filter((e) => e.type === 'routing');
    expect(batches.reduce((n, b) => n + (b.type === 'routing' ? b.count : 0), 0)).toBe(20);
    expect(routed().some((e) => e.outcome === 'rerouted' && e.handling === 'sim-1' && e.answeredBy === 'sim-2')).toBe(true);
  });

  it('sends a burst as one batch with exact counts and at most maxBatchEvents events', async () => {
    const batched = createCoreService(core, { batchMs: 200, maxBatchEvents: 50 });
    const received: CoreEvent[] = [];
    const unsubscribe = batched.subscribe((e) => received.push(e));
    try {
      // Recorded synchronously: no batch window can close in between.
      for (let i = 0; i < 1_000; i++) {
        core.telemetry.record({
          at: Date.now(),
          userAgent: 'test',
          method: 'GET',
          verb: 'list',
          path: '/api/v1/pods',
          group: '',
          version: 'v1',
          resource: 'pods',
          subresource: '',
          namespace: '',
          handling: 'sim-1',
          answeredBy: 'sim-1',
          outcome: i % 10 === 0 ? 'rerouted' : 'local',
          status: 200,
          latencyMs: 1,
          bytesIn: 0,
          bytesOut: 0,
        });
      }
      const deadline = Date.now() + 10_000;
      while (!received.some((e) => e.type === 'routing') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const batch = received.find((e) => e.type === 'routing');
      expect(batch).toMatchObject({ type: 'routing', count: 1_000, counts: { local: 900, rerouted: 100 } });
      expect(batch?.type === 'routing' && batch.events.length).toBe(50);
      expect(batch?.type === 'routing' && batch.events.at(-1)?.seq).toBe(core.telemetry.lastSeq);
    } finally {
      unsubscribe();
      batched.close();
    }
  });

  it('drops the subscription when the browser goes away', async () => {
    let open = 0;
    const counting = {
      ...service,
      subscribe: (l: (e: CoreEvent) => void) => {
        open++;
        const off = service.subscribe(l);
        return () => {
          open--;
          off();
        };
      },
    };
    const host = await startControlServer({ client: counting, rendererDir: '/nonexistent' });
    try {
      const controller = new AbortController();
      const response = await fetch(`${host.origin}/api/events`, {
        headers: { authorization: `Bearer ${host.token}` },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(open).toBe(1);
      controller.abort();
      const deadline = Date.now() + 5_000;
      while (open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(open).toBe(0);
      const page = await call(host.port, '/');
      expect(page.status).toBe(503);
      expect(page.body).toContain('npm run build');
    } finally {
      await host.close();
    }
  });
});
