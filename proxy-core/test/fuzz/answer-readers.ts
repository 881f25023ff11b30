// Reading the port's answers: the X-Peerscope-Route header, and whether an error body is a
// Kubernetes Status with the answer's code.
import { headerValue, type ParsedResponse } from './response-parser.js';

export interface Route {
  handling: string;
  answering: string;
  outcome: string;
}
export function routeOf(r: ParsedResponse): Route | undefined {
  const v = headerValue(r, 'x-peerscope-route');
  const m = v ? /^handling=([^;]+); answering=([^;]+); outcome=([a-z-]+)$/.exec(v) : null;
  return m ? { handling: m[1] as string, answering: m[2] as string, outcome: m[3] as string } : undefined;
}

export function isStatusOf(r: ParsedResponse, head: boolean): string | undefined {
  const ct = headerValue(r, 'content-type') ?? '';
  if (!ct.startsWith('application/json')) return `content-type ${JSON.stringify(ct)}, not application/json`;
  if (head) return undefined;
  let s: Record<string, unknown>;
  try {
    s = JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return `body is not JSON: ${JSON.stringify(r.body.subarray(0, 200).toString('latin1'))}`;
  }
  if (
    s.kind !== 'Status' ||
    s.apiVersion !== 'v1' ||
    s.status !== 'Failure' ||
    s.code !== r.status ||
    typeof s.message !== 'string' ||
    typeof s.metadata !== 'object'
  ) {
    return `not a Failure Status with code ${r.status}: ${JSON.stringify(s).slice(0, 300)}`;
  }
  return undefined;
}
