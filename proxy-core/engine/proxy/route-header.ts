// X-Peerscope-Route (rule P3), the per-request trace no other tool gives, on every answer the port
// writes, forwards or tunnels: `X-Peerscope-Route: handling=<name|->; answering=<name|->; outcome=<outcome>`,
// each server by the name a person reads (its host name); where that is not its identity (a lease-found
// server), the identity follows as `handling-id=` / `answering-id=`, which parseRouteHeader reads first.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { RouteOutcome } from '../../contract/events.js';

export const ROUTE_HEADER = 'x-peerscope-route';

/** What a server is called on screen, by identity (ServerSet.shownName); without it, the identity. */
export interface ShownNames {
  shownName(id: string): string;
}

export function routeHeader(handling: string | null, answering: string | null, outcome: RouteOutcome, names?: ShownNames): string {
  const h = handling === null ? '-' : (names?.shownName(handling) ?? handling);
  const a = answering === null ? '-' : (names?.shownName(answering) ?? answering);
  const ids = `${h !== '-' && h !== handling ? `; handling-id=${handling}` : ''}${a !== '-' && a !== answering ? `; answering-id=${answering}` : ''}`;
  return `handling=${h}; answering=${a}; outcome=${outcome}${ids}`;
}

// The X-Peerscope-Route header objects, one per (handling, answering, outcome) seen: a handful for
// a cluster, built once instead of twice per request. Bounded in case server names churn.
const routeHeaderCache = new Map<string, Readonly<Record<string, string>>>();

/** X-Peerscope-Route as a header object to hand to forward() or tunnel(); shared, never mutated. */
export function routeHeaders(
  handling: string | null,
  answering: string | null,
  outcome: RouteOutcome,
  names?: ShownNames,
): Readonly<Record<string, string>> {
  // The shown names are part of the key: a server's changes when another joins under the same host name.
  const h = handling === null ? '' : (names?.shownName(handling) ?? handling);
  const a = answering === null ? '' : (names?.shownName(answering) ?? answering);
  const key = `${handling ?? ''}\u0000${answering ?? ''}\u0000${outcome}\u0000${h}\u0000${a}`;
  let headers = routeHeaderCache.get(key);
  if (!headers) {
    if (routeHeaderCache.size >= 1_000) routeHeaderCache.clear();
    headers = Object.freeze({ [ROUTE_HEADER]: routeHeader(handling, answering, outcome, names) });
    routeHeaderCache.set(key, headers);
  }
  return headers;
}

/** X-Peerscope-Route read back (by tests, the CLI and the UI); `null` where it says `-`. */
export interface ParsedRoute {
  readonly handling: string | null;
  readonly answering: string | null;
  readonly outcome: string;
}

export function parseRouteHeader(value: string | undefined): ParsedRoute | undefined {
  if (!value) return undefined;
  const fields = new Map(value.split(';').map((p) => p.trim().split('=', 2) as [string, string]));
  const name = (v: string | undefined) => (v === undefined || v === '-' ? null : v);
  // The identity where the header gives one beside the shown name.
  return {
    handling: name(fields.get('handling-id') ?? fields.get('handling')),
    answering: name(fields.get('answering-id') ?? fields.get('answering')),
    outcome: fields.get('outcome') ?? '',
  };
}
