// The local port's listener, started last and closed first, and the shutdown signal every open watch
// and log follow listens for; then the data path's pools, closed once the port no longer accepts.
import { setMaxListeners } from 'node:events';
import type { Handler } from '../proxy/handler.js';
import { delay, listen, type ListenAddress, type PortListener } from '../proxy/listener.js';
import type { Upstreams } from '../upstream/pool.js';

export class LocalPort {
  private readonly shutdown = new AbortController();
  private listener: PortListener | undefined;
  private bound: ListenAddress | undefined;

  constructor() {
    // Every open watch and log follow listens for the shutdown: hundreds are normal, not a leak.
    setMaxListeners(0, this.shutdown.signal);
  }

  /** Aborted as the port closes: watches and follows end then, cleanly. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  address(): ListenAddress | undefined {
    return this.bound;
  }

  async listen(handler: Handler, at: { readonly host?: string; readonly port?: number } | undefined): Promise<ListenAddress> {
    this.listener = await listen(handler, { host: at?.host ?? '127.0.0.1', port: at?.port ?? 8001 });
    this.bound = this.listener.address;
    return this.bound;
  }

  /** Stops accepting; watches and follows end now, other in-flight requests get graceMs to finish. */
  async close(graceMs: number): Promise<void> {
    const l = this.listener;
    this.listener = undefined;
    if (l) await l.close(graceMs, () => this.shutdown.abort());
  }
}

/**
 * Closes the data path's pools. An upstream request still open once its client is gone (an apiserver
 * that never answers) is cut: undici's close() would wait for it.
 */
export async function closeUpstreams(upstreams: Upstreams, graceMs: number): Promise<void> {
  const pools = upstreams.close();
  if ((await Promise.race([pools.then(() => true), delay(Math.min(graceMs, 1_000)).then(() => false)])) === false)
    await upstreams.destroy();
}
