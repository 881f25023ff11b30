// The per-request trace no other tool gives (rule P3), on every response of the local port:
// `X-Peerscope-Route: handling=<name|->; answering=<name|->; outcome=<outcome>`.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import type { RouteOutcome } from '../../contract/events.js';

export const ROUTE_HEADER = 'x-peerscope-route';

export function routeHeader(handling: string | null, answering: string | null, outcome: RouteOutcome): string {
  return `handling=${handling ?? '-'}; answering=${answering ?? '-'}; outcome=${outcome}`;
}

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
