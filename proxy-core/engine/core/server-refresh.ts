// The server list found again on a period (a kubeconfig's cluster): one refresh at a time, the ones
// asked for meanwhile sharing it, each outcome handed to the host's log.
import type { ServerSet } from '../cluster/server-set.js';
import type { ServerSource, ServerUpdate } from '../cluster/server-config.js';

export type ServerRefresh =
  | { readonly ok: true; readonly update: ServerUpdate; readonly added: string[]; readonly gone: string[]; readonly back: string[] }
  | { readonly ok: false; readonly error: string };

export const DEFAULT_SERVER_REFRESH_MS = 30_000;

export interface ServerRefresher {
  /** Finds the servers again now; coalesced with a refresh under way; undefined without a source or once closed. */
  refresh(): Promise<ServerRefresh | undefined>;
  /** Starts the period (none when the period is 0 or there is no source). */
  start(): void;
  /** Stops the period and any later refresh; resolves once the one under way has ended. */
  close(): Promise<void>;
}

export function createServerRefresher(
  servers: ServerSet,
  source: ServerSource | undefined,
  everyMs: number,
  onRefresh: ((result: ServerRefresh) => void) | undefined,
): ServerRefresher {
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<ServerRefresh | undefined> | undefined;
  let closed = false;
  const refresh = (): Promise<ServerRefresh | undefined> => {
    if (!source || closed) return Promise.resolve(undefined);
    refreshing ??= (async (): Promise<ServerRefresh> => {
      let result: ServerRefresh;
      try {
        const update = await source.refresh(servers.known());
        if (closed) return { ok: false, error: 'the core closed' };
        result = { ok: true, update, ...servers.sync(update) };
      } catch (err) {
        result = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      onRefresh?.(result);
      return result;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
  return {
    refresh,
    start() {
      if (source && everyMs > 0 && !timer) timer = setInterval(() => void refresh(), everyMs).unref();
    },
    close() {
      closed = true;
      clearInterval(timer);
      return (refreshing ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      );
    },
  };
}
