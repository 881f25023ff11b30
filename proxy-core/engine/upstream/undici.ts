// The parts of undici proxy-core uses, loaded module by module. undici's index also loads fetch,
// WebSocket, EventSource, the cache and cookie APIs — and through them Node's own bundled copy of
// undici — none of which the port uses: in an idle `peerscope serve`, after a full GC, the heap
// holds 13.9 instead of 16.8 MiB and external memory 3.0 instead of 4.0 MiB (3 runs each, identical).
// undici has no "exports" map, so these paths are reachable; undici.test.ts checks they are still
// the very classes the index exports, so an undici release that moves them fails the suite, not the
// port.
import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import apiRequest from 'undici/lib/api/api-request.js';
import connector from 'undici/lib/core/connect.js';

export const Pool = PoolClass;
export type Pool = InstanceType<typeof PoolClass>;
export const Agent = AgentClass;
export type Agent = InstanceType<typeof AgentClass>;
export const buildConnector = connector;

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly dispatcher: Dispatcher;
  readonly method?: Dispatcher.HttpMethod;
};

/** undici's request(url, options), with the dispatcher always given (no global dispatcher here). */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  const u = typeof url === 'string' ? new URL(url) : url;
  return apiRequest.call(dispatcher, { ...rest, origin: u.origin, path: `${u.pathname}${u.search}`, method: options.method ?? 'GET' });
}
