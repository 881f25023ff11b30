// One AbortSignal per apiserver, aborted when the port's health probes (or a forward that could not
// connect) find that server unreachable: every watch and log follow relayed to it, and every tunnel
// (exec, attach, port-forward, a WebSocket watch: upstream/tunnel.ts), listens and ends.
// A link that went silent says nothing to TCP, so a watch on it would otherwise wait for ever; a
// clean end lets a reflector re-list and watch elsewhere. A server that is merely slow, not-ready or
// draining keeps its watches: only 'unreachable' aborts.
import { setMaxListeners } from 'node:events';

export class ServerDownSignals {
  private readonly controllers = new Map<string, AbortController>();

  /** The signal of `name` now: aborted the next time that server is found unreachable. */
  signal(name: string): AbortSignal {
    let controller = this.controllers.get(name);
    if (!controller) {
      controller = new AbortController();
      // Every open watch to the server listens: hundreds are normal, not a leak.
      setMaxListeners(0, controller.signal);
      this.controllers.set(name, controller);
    }
    return controller.signal;
  }

  /** Ends what listens to `name`'s signal; requests relayed from now on get a fresh one. */
  markDown(name: string, reason: string): void {
    const controller = this.controllers.get(name);
    if (!controller) return;
    this.controllers.delete(name);
    controller.abort(new Error(reason));
  }
}
