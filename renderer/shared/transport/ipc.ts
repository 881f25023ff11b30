// CoreClient in the desktop app: Electron's preload exposes the IPC bridge as `window.peerscope`
// (contract CoreBridge: each call resolves with its reply envelope). The page builds the contract's
// client over it, so every answer and event is checked as the HTTP transport's are: a mismatch between
// a newer main process and this page shows as an error, not as a broken screen; a refusal arrives with
// its code.
import { createBridgedCoreClient, type CoreBridge, type CoreClient } from '../../../proxy-core/contract/index.js';

/** The preload's bridge, when this page runs in the desktop app. */
export function preloadBridge(): CoreBridge | undefined {
  const candidate = (globalThis as { peerscope?: unknown }).peerscope;
  return candidate && typeof candidate === 'object' && typeof (candidate as CoreBridge).subscribe === 'function'
    ? (candidate as CoreBridge)
    : undefined;
}

/** The bridge's calls and events, checked against the contract. */
export function validatingClient(bridge: CoreBridge): CoreClient {
  return createBridgedCoreClient(bridge);
}
