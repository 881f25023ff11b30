// What the two yardstick proxies (bare-proxy.ts, floor-proxy.ts) share, independent of the code they
// measure Peerscope against: their command line, how they listen and stop, one undici Pool to the upstream with TLS verified
// against the CA, the hop-by-hop header names they drop, and the bearer token they add.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { Pool } from 'undici';
import { HOP_BY_HOP_HEADERS } from '../../proxy-core/engine/util/headers.js';

const [upstream, caFile, token] = process.argv.slice(2) as [string, string, string];

/** `node bare-proxy.mjs|floor-proxy.mjs UPSTREAM_URL CA_FILE TOKEN`: the upstream's pool. */
export const pool = new Pool(upstream, {
  connections: 64,
  bodyTimeout: 0,
  keepAliveTimeout: 30_000,
  connect: { ca: readFileSync(caFile, 'utf8') },
});

/** RFC 9110 §7.6.1's hop-by-hop names (the list the port itself uses), and Host (undici sets its own). */
export const HOP: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'host']);

export const bearer = `Bearer ${token}`;

/** Listens on a free loopback port, prints it as the bench waits for it, and stops on SIGTERM. */
export function serveYardstick(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    console.log(`Starting to serve on 127.0.0.1:${(server.address() as { port: number }).port}`);
  });
  process.on('SIGTERM', () => {
    server.close();
    if ('closeAllConnections' in server && typeof server.closeAllConnections === 'function') server.closeAllConnections();
    void pool.destroy().then(() => process.exit(0));
  });
}
