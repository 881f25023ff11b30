// What the preload exposes as `window.peerscope`: the CoreClient methods, each one ipcRenderer.invoke,
// and subscribe(listener) → unsubscribe. ipcRenderer itself, its events and their `sender` never
// reach the page: listeners get the CoreEvent only.
import type { IpcRenderer } from 'electron';
import type { CoreClient, CoreEvent } from '../../proxy-core/contract/client.js';
import { EVENT_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, channelOf, coreMethodNames, type IpcReply } from './ipc-wire.js';

type RendererIpc = Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>;

function unwrap(reply: unknown): unknown {
  const envelope = reply as IpcReply | undefined;
  if (envelope && typeof envelope === 'object' && 'error' in envelope) throw new Error(envelope.error.message);
  if (envelope && typeof envelope === 'object' && 'result' in envelope) return envelope.result;
  throw new Error('malformed reply from the Peerscope core');
}

export function buildPreloadApi(ipcRenderer: RendererIpc): CoreClient {
  const api: Record<string, unknown> = {};
  for (const method of coreMethodNames) {
    // The method's argument object as it is (a method without one is invoked with nothing).
    api[method] = async (input?: unknown) =>
      unwrap(await (input === undefined ? ipcRenderer.invoke(channelOf(method)) : ipcRenderer.invoke(channelOf(method), input)));
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
  return Object.freeze(api) as unknown as CoreClient;
}
