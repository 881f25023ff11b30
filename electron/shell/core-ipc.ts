// CoreClient over IPC, main side. Only ipcMain.handle (request/response; no ipcMain.on listeners a page
// could flood), one channel per contract method. Each call is refused unless it comes from a frame on
// the app origin, and its argument object is validated with the contract's zod schema before the core
// sees it. Failures come back as { error: { message } }: no stack, nothing beyond a redacted message.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { ZodError } from 'zod';
import { coreClientMethods, type CoreClient, type CoreClientMethod, type CoreEvent } from '../../proxy-core/contract/client.js';
import { isAppUrl } from './app-url.js';
import { EVENT_CHANNEL, SUBSCRIBE_CHANNEL, UNSUBSCRIBE_CHANNEL, channelOf, coreMethodNames, type IpcReply } from './ipc-wire.js';

/** Contract argument object → the CoreClient call. */
const callers: { [M in CoreClientMethod]: (client: CoreClient, args: unknown) => Promise<unknown> } = {
  getOverview: (c) => c.getOverview(),
  getRouteTable: (c) => c.getRouteTable(),
  getEvents: (c, a) => c.getEvents(coreClientMethods.getEvents.args.parse(a)),
  getHealthHistory: (c) => c.getHealthHistory(),
  getDiscoveryViews: (c) => c.getDiscoveryViews(),
  setDiscoveryMode: (c, a) => c.setDiscoveryMode(coreClientMethods.setDiscoveryMode.args.parse(a).mode),
  setPolicy: (c, a) => c.setPolicy(coreClientMethods.setPolicy.args.parse(a).policy),
  takeSnapshot: (c) => c.takeSnapshot(),
  readSnapshot: (c, a) => c.readSnapshot(coreClientMethods.readSnapshot.args.parse(a)),
  compareSnapshots: (c, a) => c.compareSnapshots(coreClientMethods.compareSnapshots.args.parse(a)),
  getImpactReport: (c, a) => c.getImpactReport(coreClientMethods.getImpactReport.args.parse(a)),
  startRollout: (c) => c.startRollout(),
  pauseRollout: (c) => c.pauseRollout(),
  setTrafficRate: (c, a) => c.setTrafficRate(coreClientMethods.setTrafficRate.args.parse(a).rps),
};

const MAX_MESSAGE_LENGTH = 500;

/** The one line of an error a page may see, with anything credential-shaped blanked out. */
export function publicErrorMessage(error: unknown, method: string): string {
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    return `invalid arguments for ${method}${issue ? `: ${issue.path.join('.') || '(argument)'}: ${issue.message}` : ''}`;
  }
  const raw = error instanceof Error ? error.message : 'the call failed';
  const firstLine = raw.split('\n')[0] ?? '';
  return firstLine
    .replace(/(bearer|basic)\s+[^\s,;]+/gi, '$1 [redacted]')
    .replace(/((?:token|password|secret|client-key-data|client-certificate-data)["']?\s*[:=]\s*)["']?[^\s,;"']+/gi, '$1[redacted]')
    .replace(/(\w+:\/\/)[^/@\s]+@/g, '$1[redacted]@')
    .slice(0, MAX_MESSAGE_LENGTH);
}

type InvokeEvent = Pick<IpcMainInvokeEvent, 'senderFrame'> & { readonly sender: Pick<WebContents, 'id' | 'send' | 'once' | 'isDestroyed'> };
type Handler = (event: InvokeEvent, ...args: unknown[]) => Promise<IpcReply>;

export interface CoreIpcRegistration {
  /** Every channel this registration handles. */
  readonly channels: readonly string[];
  /** Removes the handlers and ends every subscription. */
  dispose(): void;
}

export function registerCoreIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, client: CoreClient): CoreIpcRegistration {
  const subscriptions = new Map<number, () => void>();

  const fromApp = (event: InvokeEvent) => isAppUrl(event.senderFrame?.url);
  const refused: IpcReply = { error: { message: 'refused: this call is only accepted from the Peerscope window' } };

  const guarded = (method: string, body: (event: InvokeEvent, args: unknown[]) => Promise<unknown>): Handler => async (event, ...args) => {
    if (!fromApp(event)) return refused;
    try {
      return { result: await body(event, args) };
    } catch (error) {
      return { error: { message: publicErrorMessage(error, method) } };
    }
  };

  const handlers = new Map<string, Handler>();
  for (const method of coreMethodNames) {
    handlers.set(channelOf(method), guarded(method, async (_event, args) => {
      if (args.length > 1) throw new Error(`${method} takes one argument object`);
      const [wire] = args;
      if (coreClientMethods[method].args === undefined && wire !== undefined) throw new Error(`${method} takes no arguments`);
      return callers[method](client, wire);
    }));
  }

  const stop = (senderId: number) => {
    subscriptions.get(senderId)?.();
    subscriptions.delete(senderId);
  };
  handlers.set(SUBSCRIBE_CHANNEL, guarded('subscribe', async (event) => {
    const { sender } = event;
    if (subscriptions.has(sender.id)) return true;
    const unsubscribe = client.subscribe((coreEvent: CoreEvent) => {
      if (sender.isDestroyed()) stop(sender.id);
      else sender.send(EVENT_CHANNEL, coreEvent);
    });
    subscriptions.set(sender.id, unsubscribe);
    // The window closed or its renderer died: nobody is left to receive events.
    sender.once('destroyed', () => stop(sender.id));
    return true;
  }));
  handlers.set(UNSUBSCRIBE_CHANNEL, guarded('unsubscribe', async (event) => {
    stop(event.sender.id);
    return true;
  }));

  for (const [channel, handler] of handlers) ipcMain.handle(channel, handler as Parameters<IpcMain['handle']>[1]);

  return {
    channels: [...handlers.keys()],
    dispose() {
      for (const channel of handlers.keys()) ipcMain.removeHandler(channel);
      for (const id of [...subscriptions.keys()]) stop(id);
    },
  };
}
