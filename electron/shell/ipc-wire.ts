// The IPC wire between preload and main, shared by both sides: one channel per CoreClient method, each
// carrying the contract's single argument object (the same shape the HTTP transport posts), and an
// envelope so that an error reaches the page as data ({ code, message }), never as an Electron-wrapped stack.
import { coreClientMethods, type CoreClientMethod } from '../../proxy-core/contract/client.js';
import type { CallReply } from '../../proxy-core/contract/errors.js';

export const CHANNEL_PREFIX = 'peerscope:';
/** main → renderer: one CoreEvent per message. */
export const EVENT_CHANNEL = 'peerscope:event';
export const SUBSCRIBE_CHANNEL = 'peerscope:subscribe';
export const UNSUBSCRIBE_CHANNEL = 'peerscope:unsubscribe';

export const channelOf = (method: CoreClientMethod) => `${CHANNEL_PREFIX}${method}`;

export const coreMethodNames = Object.keys(coreClientMethods) as CoreClientMethod[];

/** What each request channel answers: the result, or `{ error: { code, message } }` (contract/errors.ts). */
export type IpcReply = CallReply;
