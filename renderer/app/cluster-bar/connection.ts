// The browser-mode event stream's state, as the top bar shows it (live, reconnecting, token refused).
import { useSyncExternalStore } from 'react';
import type { ConnectionState } from '../../shared/transport/http.js';

export interface ConnectionSource {
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

export function useConnection(source: ConnectionSource | undefined): ConnectionState | undefined {
  return useSyncExternalStore(
    (cb) => source?.onConnection(cb) ?? (() => undefined),
    () => source?.connection(),
  );
}
