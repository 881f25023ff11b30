// One core service for a host whose cluster changes while it runs (the desktop app: simulated cluster,
// then a kubeconfig, then another). Calls go to the current session's service; subscribers stay
// subscribed across switches and get a `session` event, so the UI starts over on the new cluster.
import { PeerscopeError } from '../../contract/errors.js';
import { coreClientMethods, type CoreClient, type CoreClientMethod, type CoreEvent } from '../../contract/client.js';
import type { CoreService } from '../service/service.js';

/** The part of a session the switching service calls (as any client of the session's service would). */
export interface SwitchableSession {
  readonly service: CoreClient;
  /** Shown to the operator ("simulated cluster", "context prod-eu"). */
  readonly label: string;
}

export interface SwitchingService extends CoreService {
  /** The session calls go to now; undefined before the first one. */
  current(): SwitchableSession | undefined;
  /** Moves every subscriber to `next` and tells them; returns the previous session (the caller closes it). */
  switchTo(next: SwitchableSession): SwitchableSession | undefined;
  /** Sends an event to every subscriber (a host's own events, e.g. a snapshot opened from the menu). */
  publish(event: CoreEvent): void;
}

export function createSwitchingService(): SwitchingService {
  let session: SwitchableSession | undefined;
  let generation = 0;
  const listeners = new Set<(e: CoreEvent) => void>();
  let detach: (() => void) | undefined;

  const publish = (event: CoreEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch {
        // One broken subscriber must not starve the others.
      }
    }
  };
  const attach = () => {
    detach?.();
    detach = session && listeners.size > 0 ? session.service.subscribe(publish) : undefined;
  };
  const target = (): CoreClient => {
    if (!session)
      throw new PeerscopeError('PEERSCOPE_ERR_NO_CLUSTER', 'no cluster is open: start the simulated cluster or open a kubeconfig');
    return session.service;
  };
  // Async wrappers so a missing session rejects like any failed call instead of throwing synchronously.
  const call = <T>(fn: (c: CoreClient) => Promise<T>): Promise<T> => Promise.resolve().then(() => fn(target()));

  // Every request method of the contract, forwarded as is: a method added to the contract is carried too.
  const forwarded = Object.fromEntries(
    (Object.keys(coreClientMethods) as CoreClientMethod[]).map((m) => [
      m,
      (...args: unknown[]) => call((c) => (c[m] as (...a: unknown[]) => Promise<unknown>)(...args)),
    ]),
  ) as Omit<CoreClient, 'subscribe'>;

  return {
    current: () => session,
    switchTo(next) {
      const previous = session;
      session = next;
      generation++;
      attach();
      publish({ type: 'session', id: String(generation), label: next.label });
      return previous;
    },
    publish,
    ...forwarded,
    // Stops forwarding: drops every subscriber and detaches from the session's events. The sessions
    // themselves are their owner's to close (switchTo hands the previous one back).
    close() {
      listeners.clear();
      attach();
    },
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1) attach();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) attach();
      };
    },
  };
}
