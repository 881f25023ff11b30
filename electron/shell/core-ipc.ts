// CoreClient over IPC, main side. Only ipcMain.handle (request/response; no ipcMain.on listeners a page
// could flood), one channel per contract method. Each call is refused unless it comes from a frame on
// the app origin, and its argument object is validated with the contract's zod schema before the core
// sees it. Failures come back as { error: { code, message } } (contract/errors.ts): a PeerscopeError's own
// text, or for anything else only its code, the rest logged here. Never a stack. What it serves is the core's
// service (in the app, the switching service over the open cluster's session): the callers' CoreClient is the renderer's.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { createCoreDispatcher, type CoreEvent } from '../../proxy-core/contract/client.js';
import { PeerscopeError, toCallError } from '../../proxy-core/contract/errors.js';
import type { CoreService } from '../../proxy-core/hosts/index.js';
import { isAppUrl } from './app-url.js';
import { EVENT_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, channelOf, coreMethodNames, type IpcReply } from './ipc-wire.js';

type InvokeEvent = Pick<IpcMainInvokeEvent, 'senderFrame'> & { readonly sender: Pick<WebContents, 'id' | 'send' | 'once' | 'isDestroyed'> };
type Handler = (event: InvokeEvent, ...args: unknown[]) => Promise<IpcReply>;

export interface CoreIpcRegistration {
  /** Every channel this registration handles. */
  readonly channels: readonly string[];
  /** Removes the handlers and ends every subscription. */
  dispose(): void;
}

export function registerCoreIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, service: CoreService): CoreIpcRegistration {
  const subscriptions = new Map<number, () => void>();
  const dispatch = createCoreDispatcher(service);

  const fromApp = (event: InvokeEvent) => isAppUrl(event.senderFrame?.url);
  const refused: IpcReply = {
    error: { code: 'PEERSCOPE_ERR_REFUSED', message: 'refused: this call is only accepted from the Peerscope window' },
  };

  const guarded =
    (method: string, body: (event: InvokeEvent, args: unknown[]) => Promise<unknown>): Handler =>
    async (event, ...args) => {
      if (!fromApp(event)) return refused;
      try {
        return { result: await body(event, args) };
      } catch (error) {
        const wire = toCallError(error, method);
        if (wire.code === 'PEERSCOPE_ERR_INTERNAL') console.error(`peerscope: ${method} failed:`, error);
        return { error: wire };
      }
    };

  const handlers = new Map<string, Handler>();
  for (const method of coreMethodNames) {
    handlers.set(
      channelOf(method),
      guarded(method, async (_event, args) => {
        if (args.length > 1) throw new PeerscopeError('PEERSCOPE_ERR_INVALID_ARGUMENTS', `${method} takes one argument object`);
        return dispatch(method, args[0]);
      }),
    );
  }

  const stop = (senderId: number) => {
    subscriptions.get(senderId)?.();
    subscriptions.delete(senderId);
  };
  handlers.set(
    SUBSCRIBE_CHANNEL,
    guarded('subscribe', async (event) => {
      const { sender } = event;
      if (subscriptions.has(sender.id)) return true;
      const unsubscribe = service.subscribe((coreEvent: CoreEvent) => {
        if (sender.isDestroyed()) stop(sender.id);
        else sender.send(EVENT_CHANNEL, coreEvent);
      });
      subscriptions.set(sender.id, unsubscribe);
      // The window closed or its renderer died: nobody is left to receive events.
      sender.once('destroyed', () => stop(sender.id));
      return true;
    }),
  );
  handlers.set(
    UNSUBSCRIBE_CHANNEL,
    guarded('unsubscribe', async (event) => {
      stop(event.sender.id);
      return true;
    }),
  );

  for (const [channel, handler] of handlers) ipcMain.handle(channel, handler as Parameters<IpcMain['handle']>[1]);

  return {
    channels: [...handlers.keys()],
    dispose() {
      for (const channel of handlers.keys()) ipcMain.removeHandler(channel);
      for (const id of [...subscriptions.keys()]) stop(id);
    },
  };
}
