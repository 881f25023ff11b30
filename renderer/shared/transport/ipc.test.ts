// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import {
  coreClientMethods,
  toCallError,
  type CoreBridge,
  type CoreClientMethod,
  type CoreEvent,
} from '../../../proxy-core/contract/index.js';
import { FakeCoreClient, totals } from '../../test/fake-client.js';

/** What the preload exposes, over a fake core: each call's reply envelope, as the main side sends it. */
function bridgeOver(fake: FakeCoreClient): CoreBridge {
  const bridge: Record<string, unknown> = { subscribe: (listener: (e: unknown) => void) => fake.subscribe(listener) };
  for (const method of Object.keys(coreClientMethods) as CoreClientMethod[]) {
    bridge[method] = async (input?: unknown) => {
      try {
        return { result: await (fake[method] as (input?: unknown) => Promise<unknown>).call(fake, input) };
      } catch (error) {
        return { error: toCallError(error, method) };
      }
    };
  }
  return bridge as CoreBridge;
}
import { preloadBridge, validatingClient } from './ipc.js';

afterEach(() => {
  delete (globalThis as { peerscope?: unknown }).peerscope;
});

describe('desktop (IPC) client', () => {
  it('is found only when the preload exposed one', () => {
    expect(preloadBridge()).toBeUndefined();
    const bridge = bridgeOver(new FakeCoreClient());
    (globalThis as { peerscope?: unknown }).peerscope = bridge;
    expect(preloadBridge()).toBe(bridge);
  });

  it('passes calls through and checks every answer against the contract', async () => {
    const fake = new FakeCoreClient();
    const client = validatingClient(bridgeOver(fake));
    expect((await client.getOverview()).servers).toHaveLength(3);
    expect(await client.setDiscoveryMode({ mode: 'nopeer' })).toMatchObject({ discoveryMode: 'nopeer' });
    expect(fake.calls).toContain('setDiscoveryMode:nopeer');
    fake.routeTable = { ...fake.routeTable, skewedCount: -1 };
    await expect(client.getRouteTable()).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_BAD_ANSWER' });
  });

  it('rejects with the code the core sent', async () => {
    const fake = new FakeCoreClient();
    const client = validatingClient(bridgeOver(fake));
    fake.failWith = 'the core is gone';
    // Not a PeerscopeError in the core: only its code crosses, as from the real main side.
    await expect(client.getOverview()).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_INTERNAL',
      message: 'getOverview failed inside the core (its log has the details)',
    });
  });

  it('delivers valid events and drops malformed ones', () => {
    const fake = new FakeCoreClient();
    const seen: CoreEvent[] = [];
    const stop = validatingClient(bridgeOver(fake)).subscribe((e) => seen.push(e));
    fake.emit({ type: 'route-table', generation: 2, skewedCount: 0 });
    fake.emit({ type: 'routing', events: [], counts: totals(), count: -5, windowMs: 100, lastSeq: 0 });
    expect(seen).toEqual([{ type: 'route-table', generation: 2, skewedCount: 0 }]);
    stop();
    expect(fake.subscriberCount).toBe(0);
  });
});
