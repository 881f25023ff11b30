// Which apiserver a load balancer would hand a request to (rule P1): round-robin (the default, one
// counter per listener), uniformly random, or pinned to one server to rehearse "every request lands
// on the old one". Only servers the health probe sees ready are eligible; a pinned server that is
// not ready is an error, never a silent fallback.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { IncomingMessage } from 'node:http';
import { PeerscopeError } from '../../contract/errors.js';
import { hasBody } from '../upstream/forward.js';

export type HandlingPolicy =
  { readonly kind: 'round-robin' } | { readonly kind: 'random' } | { readonly kind: 'pin'; readonly server: string };

export function parsePolicy(text: string): HandlingPolicy {
  if (text === 'round-robin' || text === 'random') return { kind: text };
  if (text.startsWith('pin:') && text.length > 4) return { kind: 'pin', server: text.slice(4) };
  throw new PeerscopeError('PEERSCOPE_ERR_POLICY', `policy "${text}" is not one of round-robin, random, pin:NAME`);
}

export function formatPolicy(p: HandlingPolicy): string {
  return p.kind === 'pin' ? `pin:${p.server}` : p.kind;
}

export type Pick = { readonly server: string } | { readonly server: null; readonly reason: string };

export class HandlingServerPicker {
  private counter = 0;

  constructor(
    public policy: HandlingPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** `ready` lists the ready servers in a stable order. */
  pick(ready: readonly string[]): Pick {
    const p = this.policy;
    if (p.kind === 'pin') {
      return ready.includes(p.server) ? { server: p.server } : { server: null, reason: `the pinned apiserver "${p.server}" is not ready` };
    }
    if (ready.length === 0) return { server: null, reason: 'no apiserver is ready' };
    if (p.kind === 'random') return { server: ready[Math.floor(this.random() * ready.length)] as string };
    const server = ready[this.counter % ready.length] as string;
    this.counter = (this.counter + 1) % 1_000_000_007;
    return { server };
  }
}

/**
 * The load balancer's one retry, as nginx's proxy_next_upstream: a forward whose handling server
 * refused the connection never reached it, so the request may go once to another handling server.
 * Decided before the forward is sent (its errors are then not written): only the first forward, to
 * the handling server itself, never a reroute to a peer (spec R8, R10: that failure is the handling
 * server's 503), never a request with a body (it may have been read). It is retried only when no
 * connection was made (upstream/errors.ts, isConnectFailure: refused, timed out, unreachable, DNS, TLS).
 */
export function mayRetryElsewhere(
  firstAttempt: boolean,
  target: string,
  handling: string | null,
  rerouted: boolean,
  req: IncomingMessage,
): boolean {
  return firstAttempt && target === handling && !rerouted && !hasBody(req);
}
