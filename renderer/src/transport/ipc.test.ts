// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../../proxy-core/contract/index.js';
import { FakeCoreClient, totals } from '../test-support/fake-client.js';
import { bridgedCoreClient, validatingClient } from './ipc.js';

afterEach(() => {
  delete (globalThis as { peerscope?: unknown }).peerscope;
});

describe('desktop (IPC) client', () => {
  it('is found only when the preload exposed one', () => {
    expect(bridgedCoreClient()).toBeUndefined();
    const fake = new FakeCoreClient();
    (globalThis as { peerscope?: unknown }).peerscope = fake;
    expect(bridgedCoreClient()).toBe(fake);
  });

  it('passes calls through and checks every answer against the contract', async () => {
    const fake = new FakeCoreClient();
    const client = validatingClient(fake);
    expect((await client.getOverview()).servers).toHaveLength(3);
    expect(await client.setDiscoveryMode({ mode: 'nopeer' })).toMatchObject({ discoveryMode: 'nopeer' });
    expect(fake.calls).toContain('setDiscoveryMode:nopeer');
    fake.routeTable = { ...fake.routeTable, skewedCount: -1 };
    await expect(client.getRouteTable()).rejects.toThrow();
  });

  it('delivers valid events and drops malformed ones', () => {
    const fake = new FakeCoreClient();
    const seen: CoreEvent[] = [];
    const stop = validatingClient(fake).subscribe((e) => seen.push(e));
    fake.emit({ type: 'route-table', generation: 2, skewedCount: 0 });
    fake.emit({ type: 'routing', events: [], counts: totals(), count: -5, windowMs: 100, lastSeq: 0 });
    expect(seen).toEqual([{ type: 'route-table', generation: 2, skewedCount: 0 }]);
    stop();
    expect(fake.subscriberCount).toBe(0);
  });
});
