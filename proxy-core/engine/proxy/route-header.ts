// X-Peerscope-Route (rule P3), the per-request trace no other tool gives, on every answer the port
// writes, forwards or tunnels: `X-Peerscope-Route: handling=<name|->; answering=<name|->; outcome=<outcome>`.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { RouteOutcome } from '../../contract/events.js';

export const ROUTE_HEADER = 'x-peerscope-route';

export function routeHeader(handling: string | null, answering: string | null, outcome: RouteOutcome): string {
  return `handling=${handling ?? '-'}; answering=${answering ?? '-'}; outcome=${outcome}`;
}

// The X-Peerscope-Route header objects, one per (handling, answering, outcome) seen: a handful for
// a cluster, built once instead of twice per request. Bounded in case server names churn.
const routeHeaderCache = new Map<string, Readonly<Record<string, string>>>();

/** X-Peerscope-Route as a header object to hand to forward() or tunnel(); shared, never mutated. */
export function routeHeaders(handling: string | null, answering: string | null, outcome: RouteOutcome): Readonly<Record<string, string>> {
  const key = `${handling ?? ''}\u0000${answering ?? ''}\u0000${outcome}`;
  let headers = routeHeaderCache.get(key);
  if (!headers) {
    if (routeHeaderCache.size >= 1_000) routeHeaderCache.clear();
    headers = Object.freeze({ [ROUTE_HEADER]: routeHeader(handling, answering, outcome) });
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
  return { handling: name(fields.get('handling')), answering: name(fields.get('answering')), outcome: fields.get('outcome') ?? '' };
}
