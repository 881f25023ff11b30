// The UI server on real sockets: an SSE stream carrying routing batches of real requests through the local
// port of a simulated two-release control plane, bursts batched with exact counts, and clean unsubscribes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreEventSchema, type CoreEvent } from '../../contract/client.js';
import { type Core } from '../../engine/core.js';
import { startUiServer, type UiServer } from './server.js';
import { createCoreService, type CoreService } from '../service/service.js';
import { call, startUiHost, type UiHost } from '../../test/ui-host.js';
import { routingEvent } from '../../test/routing-event.js';

describe('UI server', () => {
  let core: Core;
  let service: CoreService;
  let control: UiServer;
  let coreUrl: string;
  let uiHost: UiHost | undefined;

  beforeAll(async () => {
    uiHost = await startUiHost();
    ({ core, service, control, coreUrl } = uiHost);
  });
  afterAll(() => uiHost?.close());

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
        core.telemetry.record(
          routingEvent({ at: Date.now(), userAgent: 'test', outcome: i % 10 === 0 ? 'rerouted' : 'local', bytesOut: 0 }),
        );
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
    const host = await startUiServer({ service: counting, rendererDir: '/nonexistent' });
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
