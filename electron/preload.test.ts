import { beforeEach, describe, expect, it, vi } from 'vitest';
import { coreClientMethods } from '../proxy-core/contract/client.js';

const exposed = new Map<string, unknown>();
const fakeIpcRenderer = { invoke: vi.fn(async () => ({ result: 'ok' })), on: vi.fn(), removeListener: vi.fn(), send: vi.fn() };

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: fakeIpcRenderer,
}));

describe('preload', () => {
  beforeEach(async () => {
    exposed.clear();
    vi.resetModules();
    await import('./preload.js');
  });

  it('exposes exactly window.peerscope with the contract methods and subscribe', () => {
    expect([...exposed.keys()]).toEqual(['peerscope']);
    const api = exposed.get('peerscope') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...Object.keys(coreClientMethods), 'subscribe'].sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    expect(Object.values(api)).not.toContain(fakeIpcRenderer);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('invokes one peerscope:<method> channel per call', async () => {
    const api = exposed.get('peerscope') as { setDiscoveryMode(args: { mode: string }): Promise<unknown>; getOverview(): Promise<unknown> };
    // The reply envelope as it came: an error's code survives contextBridge only as data.
    await expect(api.setDiscoveryMode({ mode: 'nopeer' })).resolves.toEqual({ result: 'ok' });
    expect(fakeIpcRenderer.invoke).toHaveBeenCalledWith('peerscope:setDiscoveryMode', { mode: 'nopeer' });
    await api.getOverview();
    expect(fakeIpcRenderer.invoke).toHaveBeenLastCalledWith('peerscope:getOverview');
  });
});
