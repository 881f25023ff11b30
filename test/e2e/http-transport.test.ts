// The renderer's HTTP + SSE transport against the real UI server, in Node (no browser): every
// CoreClient call round-trips and validates, refusals surface as errors, subscribe delivers batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient, CoreEvent } from '../../proxy-core/contract/index.js';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { createCoreService, type CoreService } from '../../proxy-core/hosts/service/service.js';
import { createSimController, type SimController } from '../../proxy-core/hosts/service/sim-controller.js';
import { createCore, type Core } from '../../proxy-core/engine/core.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../../proxy-core/sim/index.js';

// The transport belongs to the renderer's web project (DOM types), so this Node project loads it at
// run time and types it through the contract instead of compiling it a second time.
type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';
interface HttpCoreClient extends CoreClient {
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}
interface TransportModule {
  createHttpCoreClient(options: { token: string; baseUrl?: string }): HttpCoreClient;
  CoreCallError: new (message: string, status: number) => Error & { status: number };
}
const transportPath = '../../renderer/shared/transport/http.js';
const { createHttpCoreClient, CoreCallError } = (await import(/* @vite-ignore */ transportPath)) as TransportModule;

describe('HTTP transport of CoreClient', () => {
  let sim: SimCluster;
  let core: Core;
  let simController: SimController;
  let service: CoreService;
  let control: UiServer;

  beforeAll(async () => {
    const v137 = loadRelease('v1.37-dev');
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), v137] });
    core = createCore({
      servers: sim.servers.map((s) => ({ name: s.name, url: s.info().url, ca: sim.ca!, bearerToken: () => sim.token })),
      listen: { port: 0 },
      probeIntervalMs: 200,
    });
    await core.start();
    simController = createSimController({
      servers: sim.servers,
      from: 'v1.36-dev',
      to: v137,
      rollout: { drainSeconds: 0.2, downSeconds: 0.2 },
    });
    service = createCoreService(core, { sim: simController, batchMs: 50 });
    control = await startUiServer({ service: service, rendererDir: '/nonexistent' });
  });

  afterAll(async () => {
    await control?.close();
    service?.close();
    await simController?.close();
    await core?.close(0);
    await sim?.close();
  });

  it('round-trips every call, validated by the contract', async () => {
    const client = createHttpCoreClient({ token: control.token, baseUrl: control.origin });
    const overview = await client.getOverview();
    expect(overview.servers.map((s) => s.name)).toEqual(['sim-1', 'sim-2']);
    expect(overview.sim?.rollout.phase).toBe('idle');
    expect((await client.getRouteTable()).skewedCount).toBeGreaterThan(0);
    expect((await client.getHealthHistory()).servers).toHaveLength(2);
    expect((await client.getDiscoveryViews()).merged.handling).toBe('sim-1');
    expect((await client.getEvents({ limit: 5 })).events.length).toBeLessThanOrEqual(5);
    expect(await client.setPolicy({ policy: 'pin:sim-2' })).toMatchObject({ policy: 'pin:sim-2' });
    expect(await client.setPolicy({ policy: 'round-robin' })).toMatchObject({ policy: 'round-robin' });
    expect(await client.setDiscoveryMode({ mode: 'nopeer' })).toMatchObject({ discoveryMode: 'nopeer' });
    await client.setDiscoveryMode({ mode: 'peer-aggregated' });
    expect((await client.takeSnapshot()).kind).toBe('RoutingSnapshot');
    await expect(client.setTrafficRate({ rps: 5 })).rejects.toThrow(/no traffic generator/);
    await expect(client.setPolicy({ policy: 'sideways' })).rejects.toBeInstanceOf(CoreCallError);
  });

  it('starts and finishes the simulated rollout; subscribers see sim and route-table events', async () => {
    const client = createHttpCoreClient({ token: control.token, baseUrl: control.origin });
    const events: CoreEvent[] = [];
    const states: ConnectionState[] = [];
    client.onConnection((s) => states.push(s));
    const unsubscribe = client.subscribe((e) => events.push(e));
    await expect.poll(() => client.connection()).toBe('live');
    expect((await client.startRollout()).rollout.phase).toBe('running');
    await expect.poll(() => simController.status().rollout.phase, { timeout: 20_000 }).toBe('done');
    await expect.poll(() => events.some((e) => e.type === 'route-table' && e.skewedCount === 0), { timeout: 20_000 }).toBe(true);
    expect(events.some((e) => e.type === 'sim' && e.sim.rollout.current?.server === 'sim-1')).toBe(true);
    expect(events.some((e) => e.type === 'servers')).toBe(true);
    unsubscribe();
    expect(states).toContain('live');
  });

  it('reports a refused token as unauthorized', async () => {
    const client = createHttpCoreClient({ token: 'wrong', baseUrl: control.origin });
    await expect(client.getOverview()).rejects.toMatchObject({ status: 401 });
    expect(client.connection()).toBe('unauthorized');
  });
});
