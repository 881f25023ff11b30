import { describe, expect, it, vi } from 'vitest';
import type { CoreEvent } from '../../proxy-core/contract/client.js';
import type { CoreService } from '../../proxy-core/hosts/index.js';
import { routeOutcomes } from '../../proxy-core/contract/events.js';
import { createBridgedCoreClient } from '../../proxy-core/contract/client.js';
import { PeerscopeError } from '../../proxy-core/contract/errors.js';
import { registerCoreIpc } from './core-ipc.js';
import { buildPreloadBridge } from './preload-api.js';
import { coreMethodNames } from './ipc-wire.js';

const settings = { policy: 'round-robin', discoveryMode: 'peer-aggregated' as const };

function fakeClient() {
  let listener: ((e: CoreEvent) => void) | undefined;
  const unsubscribe = vi.fn(() => {
    listener = undefined;
  });
  const client = {
    getOverview: vi.fn(async () => ({
      ...settings,
      listen: null,
      servers: [],
      totals: Object.fromEntries(routeOutcomes.map((o) => [o, 0])),
      lastSeq: 0,
    })),
    getRouteTable: vi.fn(),
    getEvents: vi.fn(async (args: unknown) => ({ events: [], lastSeq: 0, args })),
    getHealthHistory: vi.fn(),
    getDiscoveryViews: vi.fn(),
    setDiscoveryMode: vi.fn(async ({ mode }: { mode: string }) => ({ ...settings, discoveryMode: mode })),
    setPolicy: vi.fn(async ({ policy }: { policy: string }) => {
      if (policy === 'pin:leak')
        throw new Error('cannot reach https://admin:hunter2@10.0.0.1 with Bearer abc.def.ghi\n    at secret (/home/op/.kube/config:3)');
      if (policy === 'pin:nobody') throw new PeerscopeError('PEERSCOPE_ERR_POLICY', 'no server is named "nobody"');
      return { ...settings, policy };
    }),
    takeSnapshot: vi.fn(),
    startRollout: vi.fn(),
    pauseRollout: vi.fn(),
    setTrafficRate: vi.fn(async ({ rps }: { rps: number }) => ({
      rollout: { phase: 'idle', from: 'a', to: 'b', upgraded: [] },
      trafficRps: rps,
    })),
    subscribe: vi.fn((l: (e: CoreEvent) => void) => {
      listener = l;
      return unsubscribe;
    }),
    close: vi.fn(),
  };
  return { client: client as unknown as CoreService & typeof client, push: (e: CoreEvent) => listener?.(e), unsubscribe };
}

function fakeIpcMain() {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
  return {
    handlers,
    handle: vi.fn((channel: string, h: (event: unknown, ...args: unknown[]) => Promise<unknown>) => {
      handlers.set(channel, h);
    }),
    removeHandler: vi.fn((channel: string) => {
      handlers.delete(channel);
    }),
  };
}

function fakeSender(id = 1) {
  const once = new Map<string, () => void>();
  return {
    id,
    sent: [] as unknown[],
    destroyed: false,
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
    },
    once(event: string, l: () => void) {
      once.set(event, l);
      return this;
    },
    isDestroyed() {
      return this.destroyed;
    },
    destroy() {
      this.destroyed = true;
      once.get('destroyed')?.();
    },
  };
}

const appEvent = (sender = fakeSender(), url = 'peerscope://app/index.html') => ({ sender, senderFrame: { url } });

describe('registerCoreIpc', () => {
  it('handles one peerscope:<method> channel per contract method, plus subscribe/unsubscribe', () => {
    const ipc = fakeIpcMain();
    const registration = registerCoreIpc(ipc, fakeClient().client);
    expect([...ipc.handlers.keys()].sort()).toEqual(
      [...coreMethodNames.map((m) => `peerscope:${m}`), 'peerscope:subscribe', 'peerscope:unsubscribe'].sort(),
    );
    expect(registration.channels).toHaveLength(coreMethodNames.length + 2);
    registration.dispose();
    expect(ipc.handlers.size).toBe(0);
  });

  it('calls the core with validated arguments and returns the result', async () => {
    const ipc = fakeIpcMain();
    const { client } = fakeClient();
    registerCoreIpc(ipc, client);
    await expect(ipc.handlers.get('peerscope:setPolicy')!(appEvent(), { policy: 'random' })).resolves.toEqual({
      result: { ...settings, policy: 'random' },
    });
    expect(client.setPolicy).toHaveBeenCalledWith({ policy: 'random' });
    await ipc.handlers.get('peerscope:setDiscoveryMode')!(appEvent(), { mode: 'nopeer' });
    expect(client.setDiscoveryMode).toHaveBeenCalledWith({ mode: 'nopeer' });
    await ipc.handlers.get('peerscope:getEvents')!(appEvent(), { sinceSeq: 5 });
    expect(client.getEvents).toHaveBeenCalledWith({ sinceSeq: 5 });
  });

  it('refuses calls from any frame not on peerscope://app, before touching the core', async () => {
    const ipc = fakeIpcMain();
    const { client } = fakeClient();
    registerCoreIpc(ipc, client);
    for (const url of ['https://evil.example/', 'file:///tmp/x.html', 'peerscope://evil/', 'http://127.0.0.1:8001/']) {
      const reply = await ipc.handlers.get('peerscope:setPolicy')!(appEvent(fakeSender(), url), { policy: 'random' });
      expect(reply).toEqual({ error: { code: 'PEERSCOPE_ERR_REFUSED', message: expect.stringContaining('refused') } });
    }
    expect(await ipc.handlers.get('peerscope:getOverview')!({ sender: fakeSender(), senderFrame: null })).toHaveProperty('error');
    expect(await ipc.handlers.get('peerscope:subscribe')!(appEvent(fakeSender(), 'https://evil.example/'))).toHaveProperty('error');
    expect(client.setPolicy).not.toHaveBeenCalled();
    expect(client.getOverview).not.toHaveBeenCalled();
    expect(client.subscribe).not.toHaveBeenCalled();
  });

  it.each([
    ['peerscope:setPolicy', [{ policy: '' }]],
    ['peerscope:setPolicy', ['random']],
    ['peerscope:setDiscoveryMode', [{ mode: 'everything' }]],
    ['peerscope:setTrafficRate', [{ rps: -1 }]],
    ['peerscope:getEvents', [{ limit: 0 }]],
    ['peerscope:getOverview', [{ sneaky: true }]],
    ['peerscope:getEvents', [{}, {}]],
  ])('refuses invalid arguments to %s as a plain error', async (channel, args) => {
    const ipc = fakeIpcMain();
    const { client } = fakeClient();
    registerCoreIpc(ipc, client);
    const reply = await ipc.handlers.get(channel)!(appEvent(), ...args);
    expect(reply).toEqual({ error: { code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS', message: expect.any(String) } });
    expect(JSON.parse(JSON.stringify(reply))).toEqual(reply);
    expect(client.setPolicy).not.toHaveBeenCalled();
    expect(client.setDiscoveryMode).not.toHaveBeenCalled();
    expect(client.setTrafficRate).not.toHaveBeenCalled();
    expect(client.getOverview).not.toHaveBeenCalled();
  });

  it("returns a Peerscope error's code and message, and of any other failure only its code", async () => {
    const ipc = fakeIpcMain();
    registerCoreIpc(ipc, fakeClient().client);
    const refused = await ipc.handlers.get('peerscope:setPolicy')!(appEvent(), { policy: 'pin:nobody' });
    expect(refused).toEqual({ error: { code: 'PEERSCOPE_ERR_POLICY', message: 'no server is named "nobody"' } });
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    try {
      const reply = (await ipc.handlers.get('peerscope:setPolicy')!(appEvent(), { policy: 'pin:leak' })) as {
        error: { code: string; message: string };
      };
      expect(Object.keys(reply)).toEqual(['error']);
      expect(Object.keys(reply.error).sort()).toEqual(['code', 'message']);
      expect(reply.error.code).toBe('PEERSCOPE_ERR_INTERNAL');
      expect(reply.error.message).not.toMatch(/hunter2|abc\.def\.ghi|\.kube|\n|at secret|10\.0\.0\.1/);
      // The text Peerscope did not write stays in the main process's log.
      expect(String(logged[0]?.[1])).toContain('hunter2');
    } finally {
      spy.mockRestore();
    }
  });

  it('pushes CoreEvents to a subscribed window until it closes', async () => {
    const ipc = fakeIpcMain();
    const { client, push, unsubscribe } = fakeClient();
    registerCoreIpc(ipc, client);
    const sender = fakeSender(7);
    await ipc.handlers.get('peerscope:subscribe')!(appEvent(sender));
    await ipc.handlers.get('peerscope:subscribe')!(appEvent(sender));
    expect(client.subscribe).toHaveBeenCalledTimes(1);
    const event: CoreEvent = { type: 'settings', settings };
    push(event);
    expect(sender.sent).toEqual([['peerscope:event', event]]);
    sender.destroy();
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    push(event);
    expect(sender.sent).toHaveLength(1);
  });

  it('stops pushing on unsubscribe and on dispose', async () => {
    const ipc = fakeIpcMain();
    const { client, unsubscribe } = fakeClient();
    const registration = registerCoreIpc(ipc, client);
    await ipc.handlers.get('peerscope:subscribe')!(appEvent(fakeSender(1)));
    await ipc.handlers.get('peerscope:unsubscribe')!(appEvent(fakeSender(1)));
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    await ipc.handlers.get('peerscope:subscribe')!(appEvent(fakeSender(2)));
    registration.dispose();
    expect(unsubscribe).toHaveBeenCalledTimes(2);
  });
});

describe('preload API over the real main-side handlers', () => {
  function wire() {
    const ipc = fakeIpcMain();
    const core = fakeClient();
    registerCoreIpc(ipc, core.client);
    const sender = fakeSender(3);
    const rendererListeners = new Map<string, (event: unknown, payload: unknown) => void>();
    sender.send = (channel: string, payload: unknown) => {
      rendererListeners.get(channel)?.({ sender: 'ipcRenderer itself' }, payload);
    };
    const ipcRenderer = {
      invoke: vi.fn((channel: string, ...args: unknown[]) => ipc.handlers.get(channel)!(appEvent(sender), ...args)),
      on: vi.fn((channel: string, l: (event: unknown, payload: unknown) => void) => {
        rendererListeners.set(channel, l);
        return ipcRenderer;
      }),
      removeListener: vi.fn((channel: string) => {
        rendererListeners.delete(channel);
        return ipcRenderer;
      }),
    };
    return { api: createBridgedCoreClient(buildPreloadBridge(ipcRenderer as never)), core, ipcRenderer, rendererListeners };
  }

  it('sends the contract argument objects and unwraps results', async () => {
    const { api, core } = wire();
    await expect(api.setPolicy({ policy: 'random' })).resolves.toMatchObject({ policy: 'random' });
    await expect(api.setTrafficRate({ rps: 50 })).resolves.toMatchObject({ trafficRps: 50 });
    await api.getEvents({ sinceSeq: 2, limit: 10 });
    expect(core.client.getEvents).toHaveBeenCalledWith({ sinceSeq: 2, limit: 10 });
    await api.getEvents();
    expect(core.client.getEvents).toHaveBeenLastCalledWith({});
    await expect(api.getOverview()).resolves.toMatchObject({ listen: null });
  });

  it('rejects with the code and message the main side sent', async () => {
    const { api } = wire();
    await expect(api.setPolicy({ policy: '' })).rejects.toMatchObject({
      code: 'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      message: expect.stringMatching(/^invalid arguments for setPolicy/),
    });
    await expect(api.setPolicy({ policy: 'pin:nobody' })).rejects.toBeInstanceOf(PeerscopeError);
  });

  it('delivers CoreEvents (not the IPC event) to listeners until the last unsubscribes', async () => {
    const { api, core, ipcRenderer, rendererListeners } = wire();
    const a = vi.fn();
    const b = vi.fn();
    const stopA = api.subscribe(a);
    const stopB = api.subscribe(b);
    await vi.waitFor(() => expect(core.client.subscribe).toHaveBeenCalledTimes(1));
    const event: CoreEvent = { type: 'settings', settings };
    core.push(event);
    expect(a).toHaveBeenCalledWith(event);
    expect(a.mock.calls[0]).toHaveLength(1);
    stopA();
    stopA();
    core.push(event);
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(2);
    stopB();
    expect(rendererListeners.has('peerscope:event')).toBe(false);
    expect(ipcRenderer.invoke).toHaveBeenCalledWith('peerscope:unsubscribe');
    await vi.waitFor(() => expect(core.unsubscribe).toHaveBeenCalled());
  });
});
