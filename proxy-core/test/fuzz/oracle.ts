// The fuzz oracle: given what was sent on one connection, what came back and what each upstream
// recorded, list every broken promise of the port —
// - every answer is well-formed HTTP (the parser) and answers its own request (ids echoed, in order);
// - every error the port produces itself is a Kubernetes Status (kind Status, apiVersion v1,
//   status Failure, code = the HTTP status), and every answer carries one X-Peerscope-Route;
// - what the port must refuse (foreign, missing or repeated Host, a request a browser marks as from
//   another origin, a target that is not a path, an
//   undecodable path, an unsupported transfer coding, a malformed head) reaches no upstream;
// - what it forwards arrives once, byte-exact (method, request target, body) with every end-to-end
//   header, and without client X-Remote-* headers and hop-by-hop headers, with the right credential;
// - it reaches a server that serves the request's GVR (decoded as kube-apiserver decodes the path)
//   whenever one does, and the handling server otherwise;
// - hop-by-hop headers of the upstream's answer do not reach the client.
// This file walks the connection's answers; what must hold for a request that reached an upstream
// is in forward-checks.ts.
import type { ConnectionOutcome } from './client.js';
import { isStatusOf, routeOf } from './answer-readers.js';
import { describe, trace } from './failure-report.js';
import { fidelityOf, securityOf } from './forward-checks.js';
import type { OracleContext } from './oracle-context.js';
import type { Rendered } from './rendered.js';
import { headerValue, headerValues } from './response-parser.js';
import { FUZZ_ID_HEADER, UPSTREAM_HEADER, type UpstreamRecord } from './upstream.js';

export function checkConnection(
  ctx: OracleContext,
  requests: readonly Rendered[],
  outcome: ConnectionOutcome,
  records: ReadonlyMap<string, UpstreamRecord[]>,
): string[] {
  const failures: string[] = [];
  const connection = () =>
    `\n    connection (${outcome.timedOut ? 'timed out' : outcome.closedByPeer ? 'closed by the port' : 'closed by the client'}${outcome.socketError ? `, ${outcome.socketError}` : ''}):\n${trace(requests, outcome)}`;
  const fail = (req: Rendered | undefined, what: string) =>
    failures.push(`${what}${req ? `\n    request ${describe(req)}` : ''}${connection()}`);
  if (outcome.syntaxError) {
    const unanswered = outcome.answers.findIndex((a) => a.finals.length === 0);
    fail(requests[unanswered < 0 ? requests.length - 1 : unanswered], `malformed HTTP from the port: ${outcome.syntaxError}`);
  }

  let cut = false;
  for (let i = 0; i < requests.length; i++) {
    const req = requests[i] as Rendered;
    const answer = outcome.answers[i];
    const recs = records.get(req.id) ?? [];
    const final = answer?.finals[0];

    if (recs.length > 1) fail(req, `forwarded ${recs.length} times (to ${recs.map((r) => r.server).join(', ')})`);
    const rec = recs[0];
    if (rec && (req.expect === 'refuse' || req.expect === 'own'))
      fail(
        req,
        `reached upstream ${rec.server} although the port must answer it itself (${req.expect}${req.codes.length ? ` ${req.codes.join('/')}` : ''})`,
      );
    if (rec) failures.push(...securityOf(ctx, req, rec).map((f) => `${f}\n    request ${describe(req)}`));

    if (!final) {
      const truncatedHere = outcome.truncated?.index === i;
      // An upstream cut in the middle of the body: the client sees a truncated answer, or none when the
      // cut came before the port's first bytes left (either way the connection ends).
      const allowed = cut || req.mayHang || (req.spec.reply === 'cut-mid-body' && rec !== undefined);
      if (!allowed && !outcome.syntaxError) {
        fail(
          req,
          `no answer (${outcome.truncated ? `connection cut: ${outcome.truncated.message}` : outcome.timedOut ? 'timed out' : outcome.closedByPeer ? 'connection closed' : 'still open'}${outcome.socketError ? `, ${outcome.socketError}` : ''}) for a request expected to ${req.expect}`,
        );
      }
      if (truncatedHere || outcome.truncated !== undefined) cut = true;
      continue;
    }

    // A response that announces Connection: close ends the connection: later requests go unanswered
    // (RFC 9112 §9.6; the client sends them again on a new connection).
    if (answer.finals.some((r) => headerValues(r, 'connection').join(',').toLowerCase().includes('close'))) cut = true;
    for (const r of answer.finals) {
      const routes = headerValues(r, 'x-peerscope-route');
      const control = req.target.startsWith('/.peerscope/');
      if (!control && routes.length !== 1) fail(req, `${routes.length} X-Peerscope-Route headers on a ${r.status}`);
    }
    const fromUpstream = headerValue(final, UPSTREAM_HEADER);
    const route = routeOf(final);
    if (fromUpstream !== undefined) {
      const echoed = headerValue(final, FUZZ_ID_HEADER);
      if (final.status !== 101 && echoed !== req.id)
        fail(req, `the answer belongs to another request: id ${JSON.stringify(echoed)} (responses out of order?)`);
      if (!rec && final.status !== 101) fail(req, `an upstream answer (${fromUpstream}) but no upstream recorded the request`);
      if (rec && rec.server !== fromUpstream) fail(req, `recorded by ${rec.server} but answered by ${fromUpstream}`);
      const leaked = ['x-hop-secret', 'proxy-authenticate', 'trailer', 'proxy-connection'].filter(
        (h) => headerValue(final, h) !== undefined,
      );
      const conn = headerValues(final, 'connection')
        .join(',')
        .toLowerCase()
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      if (conn.some((t) => t !== 'keep-alive' && t !== 'close' && t !== 'upgrade')) leaked.push(`connection: ${conn.join(',')}`);
      if (headerValue(final, 'keep-alive')?.includes('max=7')) leaked.push('keep-alive');
      if (leaked.length) fail(req, `hop-by-hop headers of the upstream's answer reached the client: ${leaked.join(', ')}`);
      if (
        req.spec.reply === 'warnings' &&
        final.status === 200 &&
        headerValues(final, 'warning').join(', ') !== '299 - "first", 299 - "second"'
      )
        fail(req, `Warning headers lost: ${JSON.stringify(headerValues(final, 'warning'))}`);
      if (req.spec.reply === 'big' && final.status === 200 && !req.head && final.body.length !== 300 * 1024)
        fail(req, `a ${final.body.length}-byte body instead of ${300 * 1024}`);
    } else if (final.status >= 400) {
      const bad = isStatusOf(final, req.head);
      if (bad) fail(req, `the port's own ${final.status} is not a Status: ${bad}`);
    }
    for (const extra of answer.finals.slice(1)) {
      if (headerValue(extra, UPSTREAM_HEADER) === undefined && extra.status >= 400) {
        const bad = isStatusOf(extra, false);
        if (bad) fail(req, `the port's own second answer ${extra.status} is not a Status: ${bad}`);
      }
    }

    switch (req.expect) {
      case 'refuse':
        if (fromUpstream !== undefined || !req.codes.includes(final.status))
          fail(
            req,
            `expected the port to refuse with ${req.codes.join(' or ')}, got ${final.status}${fromUpstream ? ` from upstream ${fromUpstream}` : ''}`,
          );
        break;
      case 'own':
        if (fromUpstream !== undefined) fail(req, `the port's own endpoint was answered by upstream ${fromUpstream}`);
        break;
      case 'forward': {
        // An upstream that fails before its answer (a HEAD's cut comes before the headers are out).
        const fault = req.spec.reply === 'reset' || req.spec.reply === 'garbage' || req.spec.reply === 'cut-mid-body';
        if (fromUpstream === undefined && !(fault && final.status === 503)) {
          fail(
            req,
            `expected a forward, got the port's own ${final.status} (${route ? `${route.outcome}` : 'no route'}): ${final.body.subarray(0, 300).toString('latin1')}`,
          );
          break;
        }
        if (!rec) {
          fail(req, 'expected a forward, but no upstream recorded it');
          break;
        }
        // An upstream fault before its answer: the 503 was checked as the port's own above.
        if (fromUpstream === undefined) break;
        failures.push(...fidelityOf(ctx, req, rec, route).map((f) => `${f}\n    request ${describe(req)}`));
        break;
      }
      case 'either':
        break;
    }
  }
  return failures;
}
