// CoreClient in the desktop app: Electron's preload exposes it as `window.peerscope` (IPC). The page
// still checks every answer and event against the contract, as the HTTP transport does: a mismatch
// between a newer main process and this page shows as an error, not as a broken screen.
import { createCoreClient, type CoreClient } from '../../../proxy-core/contract/index.js';

/** The preload's CoreClient, when this page runs in the desktop app. */
export function bridgedCoreClient(): CoreClient | undefined {
  const candidate = (globalThis as { peerscope?: unknown }).peerscope;
  return candidate && typeof candidate === 'object' && typeof (candidate as CoreClient).subscribe === 'function' ? (candidate as CoreClient) : undefined;
}

/** The bridge's calls and events, checked against the contract as the HTTP transport's are. */
export function validatingClient(raw: CoreClient): CoreClient {
  return createCoreClient({
    call: (method, input) => (raw[method] as (input?: unknown) => Promise<unknown>)(input),
    subscribe: (listener) => raw.subscribe(listener),
  });
}
