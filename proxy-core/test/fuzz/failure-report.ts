// How the oracle describes a failure: the request's first bytes, and one line per request of the
// connection with what was sent and what came back.
import type { ConnectionOutcome } from './client.js';
import type { Rendered } from './rendered.js';
import { headerValue } from './response-parser.js';
import { UPSTREAM_HEADER } from './upstream.js';

export function describe(req: Rendered): string {
  const text = req.bytes.subarray(0, 600).toString('latin1');
  return `${req.id} ${JSON.stringify(text)}${req.bytes.length > 600 ? `… (${req.bytes.length} bytes)` : ''}`;
}

/** One line per request of the connection: what was sent, what came back. */
export function trace(requests: readonly Rendered[], outcome: ConnectionOutcome): string {
  return requests
    .map((r, i) => {
      const a = outcome.answers[i];
      const got = a
        ? [...a.interim, ...a.finals]
            .map((f) => `${f.status}${headerValue(f, UPSTREAM_HEADER) ? `@${headerValue(f, UPSTREAM_HEADER)}` : ''}`)
            .join('+') || '-'
        : '-';
      return `      [${i}] ${r.id} ${r.expect}${r.codes.length ? `(${r.codes.join('/')})` : ''}${r.terminal ? ' terminal' : ''} ${r.method.slice(0, 12)} ${JSON.stringify(r.target.slice(0, 80))} reply=${r.spec.reply} → ${got}`;
    })
    .join('\n');
}
