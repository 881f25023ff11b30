// What the rest of the engine does when the server set changes: the data path's pools follow its
// membership, and a server found unreachable ends the watches relayed to it.
import type { ServerSet } from '../cluster/server-set.js';
import type { ServerConfig } from '../cluster/server-config.js';
import { ServerDownSignals } from '../proxy/server-down.js';
import type { Upstreams } from '../upstream/pool.js';

/**
 * Data-path pools follow the server set: a server that joins gets its pool, a removed one's closes
 * gracefully, one at another address is reconnected. A gone server keeps its pool until removed
 * (requests already on it finish); it is never chosen for a new one.
 */
export function poolsFollow(servers: ServerSet, upstreams: Upstreams): void {
  servers.on('membership', () => upstreams.setServers(servers.names().map((n) => servers.config(n) as ServerConfig)));
}

/**
 * A server found unreachable (a probe, or a forward that could not connect) ends the watches relayed
 * to it: on a silent link nothing else would. The signals the request path listens on.
 */
export function downSignals(servers: ServerSet): ServerDownSignals {
  const serverDown = new ServerDownSignals();
  servers.on('health', (name) => {
    if (servers.health(name) === 'unreachable') serverDown.markDown(name, servers.lastError(name) ?? 'found unreachable');
  });
  return serverDown;
}
