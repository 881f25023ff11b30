// What the preload exposes as `window.peerscope` (contract CoreBridge): the CoreClient methods, each one
// ipcRenderer.invoke resolving with its reply envelope, and subscribe(listener) → unsubscribe. The
// envelope is not unwrapped here: an error thrown across contextBridge keeps only its message, and the
// page needs its code. ipcRenderer itself, its events and their `sender` never reach the page:
// listeners get the CoreEvent only.
import type { IpcRenderer } from 'electron';
import type { CoreBridge, CoreEvent } from '../../proxy-core/contract/client.js';
import { EVENT_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, channelOf, coreMethodNames, type IpcReply } from './ipc-wire.js';

type RendererIpc = Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>;

export function buildPreloadBridge(ipcRenderer: RendererIpc): CoreBridge {
  const api: Record<string, unknown> = {};
  for (const method of coreMethodNames) {
    // The method's argument object as it is (a method without one is invoked with nothing).
    api[method] = async (input?: unknown): Promise<IpcReply> =>
      input === undefined ? ipcRenderer.invoke(channelOf(method)) : ipcRenderer.invoke(channelOf(method), input);
  }

  const listeners = new Set<(event: CoreEvent) => void>();
  const deliver = (_ipcEvent: unknown, event: CoreEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A throwing listener must not stop delivery to the others.
      }
    }
  };
  api.subscribe = (listener: (event: CoreEvent) => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribe needs a listener function');
    if (listeners.size === 0) {
      ipcRenderer.on(EVENT_CHANNEL, deliver);
      void ipcRenderer.invoke(SUBSCRIBE_CHANNEL);
    }
    listeners.add(listener);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      listeners.delete(listener);
      if (listeners.size === 0) {
        ipcRenderer.removeListener(EVENT_CHANNEL, deliver);
        void ipcRenderer.invoke(UNSUBSCRIBE_CHANNEL);
      }
    };
  };
  return Object.freeze(api) as unknown as CoreBridge;
}
