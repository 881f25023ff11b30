// The IPC wire between preload and main, shared by both sides: one channel per CoreClient method, each
// carrying the contract's single argument object (the same shape the HTTP transport posts), and an
// envelope so that an error reaches the page as data, never as an Electron-wrapped stack.
import { coreClientMethods, type CoreClient, type CoreClientMethod } from '../../proxy-core/contract/client.js';

export const CHANNEL_PREFIX = 'peerscope:';
/** main → renderer: one CoreEvent per message. */
export const EVENT_CHANNEL = 'peerscope:event';
export const SUBSCRIBE_CHANNEL = 'peerscope:subscribe';
export const UNSUBSCRIBE_CHANNEL = 'peerscope:unsubscribe';

export const channelOf = (method: CoreClientMethod) => `${CHANNEL_PREFIX}${method}`;

export const coreMethodNames = Object.keys(coreClientMethods) as CoreClientMethod[];

export type IpcReply = { readonly result: unknown } | { readonly error: { readonly message: string } };

type RequestMethods = Omit<CoreClient, 'subscribe'>;

/** Positional CoreClient arguments → the contract's argument object (undefined: the method takes none). */
export const toWire: { [M in CoreClientMethod]: (...args: Parameters<RequestMethods[M]>) => unknown } = {
  getOverview: () => undefined,
  getRouteTable: () => undefined,
  getEvents: (args) => args ?? {},
  getHealthHistory: () => undefined,
  getDiscoveryViews: () => undefined,
  setDiscoveryMode: (mode) => ({ mode }),
  setPolicy: (policy) => ({ policy }),
  takeSnapshot: () => undefined,
  readSnapshot: (args) => args,
  compareSnapshots: (args) => args,
  getImpactReport: (args) => args ?? {},
  startRollout: () => undefined,
  pauseRollout: () => undefined,
  setTrafficRate: (rps) => ({ rps }),
};
