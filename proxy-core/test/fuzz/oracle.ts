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
import { createHash } from 'node:crypto';
import type { ConnectionOutcome } from './client.js';
import type { Rendered } from './render.js';
import { CLIENT_TOKEN, SERVER_TOKEN } from './cluster.js';
import { headerValue, headerValues, type ParsedResponse } from './response-parser.js';
import { FUZZ_ID_HEADER, UPSTREAM_HEADER, type FuzzGvr, type UpstreamRecord } from './upstream.js';

export interface OracleContext {
  /** Upstream name → its port. */
  readonly upstreamPorts: ReadonlyMap<string, number>;
  readonly servers: Readonly<Record<string, readonly FuzzGvr[]>>;
}

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
const IDENTITY = /^x-remote-(user|uid|group|extra-.*)$/i;
/** Header names Node keeps only the first of. */
const FIRST_ONLY = new Set(['authorization', 'content-type', 'content-length', 'user-agent', 'host']);

function trimOws(v: string): string {
  return v.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The request's headers as Node hands them to the port: lower-case names, repeats joined. */
function nodeView(headers: readonly (readonly [string, string])[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [n, v] of headers) {
    const name = n.toLowerCase();
    const value = trimOws(v);
    const prev = out.get(name);
    if (prev === undefined) out.set(name, value);
    else if (!FIRST_ONLY.has(name)) out.set(name, `${prev}, ${value}`);
  }
  return out;
}

function recordView(rec: UpstreamRecord): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < rec.rawHeaders.length; i += 2) {
    const name = (rec.rawHeaders[i] as string).toLowerCase();
    const value = rec.rawHeaders[i + 1] as string;
    const prev = out.get(name);
    out.set(name, prev === undefined ? value : `${prev}, ${value}`);
  }
  return out;
}

function hopSet(view: Map<string, string>): Set<string> {
  const set = new Set(HOP_BY_HOP);
  for (const t of (view.get('connection') ?? '').split(',')) if (t.trim()) set.add(t.trim().toLowerCase());
  return set;
}

interface Route {
  handling: string;
  answering: string;
  outcome: string;
}
function routeOf(r: ParsedResponse): Route | undefined {
  const v = headerValue(r, 'x-peerscope-route');
  const m = v ? /^handling=([^;]+); answering=([^;]+); outcome=([a-z-]+)$/.exec(v) : null;
  return m ? { handling: m[1] as string, answering: m[2] as string, outcome: m[3] as string } : undefined;
}

/** kube-apiserver's RequestInfo on the decoded path: the GVR key of a resource request, else undefined. */
export function gvrOfPath(decoded: string): string | undefined {
  const seg = decoded.replace(/^\/+|\/+$/g, '').split('/');
  if (decoded.replace(/^\/+|\/+$/g, '') === '' || seg.length < 3) return undefined;
  let i = 0;
  const prefix = seg[i++];
  if (prefix !== 'api' && prefix !== 'apis') return undefined;
  let group = '';
  if (prefix === 'apis') {
    if (seg.length < 4) return undefined;
    group = seg[i++] as string;
  }
  const version = seg[i++] as string;
  if (seg[i] === 'watch' || seg[i] === 'proxy') {
    if (seg.length - i < 2) return undefined;
    i++;
  }
  if (seg[i] === 'namespaces' && seg.length - i > 1) {
    const next = seg[i + 2];
    if (next !== undefined && next !== 'status' && next !== 'finalize') i += 2;
  }
  return `${group}/${version}/${seg[i] ?? ''}`;
}

function isStatusOf(r: ParsedResponse, head: boolean): string | undefined {
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

function describe(req: Rendered): string {
  const text = req.bytes.subarray(0, 600).toString('latin1');
  return `${req.id} ${JSON.stringify(text)}${req.bytes.length > 600 ? `… (${req.bytes.length} bytes)` : ''}`;
}

/** One line per request of the connection: what was sent, what came back. */
function trace(requests: readonly Rendered[], outcome: ConnectionOutcome): string {
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

/** What must hold for anything that reached an upstream, whatever the request looked like. */
function securityOf(ctx: OracleContext, req: Rendered, rec: UpstreamRecord): string[] {
  const out: string[] = [];
  const view = nodeView(req.headers);
  const hostLines = req.headers.filter(([n]) => n.toLowerCase() === 'host');
  if (hostLines.length !== 1) out.push(`forwarded with ${hostLines.length} Host header lines (must be exactly one)`);
  if (!req.target.startsWith('/')) out.push(`forwarded a request target that is not a path: ${JSON.stringify(req.target.slice(0, 100))}`);
  if (req.target.startsWith('/.peerscope/')) out.push("forwarded a path of the port's own endpoints");
  const up = recordView(rec);
  const hop = hopSet(view);
  for (const name of up.keys()) {
    if (IDENTITY.test(name)) out.push(`client identity header ${name} reached upstream ${rec.server}`);
    if (
      name === 'connection' ||
      (name === 'transfer-encoding' && up.get(name)?.toLowerCase() === 'chunked') ||
      (name === 'upgrade' && rec.upgrade)
    )
      continue;
    // A client Authorization named in Connection is dropped; the port then adds its own token.
    if (name === 'authorization' && up.get(name) === `Bearer ${SERVER_TOKEN}`) continue;
    if (hop.has(name)) out.push(`hop-by-hop header ${name} reached upstream ${rec.server}`);
  }
  const expectedHost = `127.0.0.1:${ctx.upstreamPorts.get(rec.server)}`;
  if (up.get('host') !== expectedHost) out.push(`upstream Host ${JSON.stringify(up.get('host'))}, expected ${expectedHost}`);
  if (rec.url !== req.target)
    out.push(
      `request target changed on the way: sent ${JSON.stringify(req.target.slice(0, 200))}, upstream got ${JSON.stringify(rec.url.slice(0, 200))}`,
    );
  return out;
}

/** A well-formed forwarded request: everything end-to-end arrives as sent, and at the right server. */
function fidelityOf(ctx: OracleContext, req: Rendered, rec: UpstreamRecord, route: Route | undefined): string[] {
  const out: string[] = [];
  if (rec.method !== req.method) out.push(`method ${req.method} arrived as ${rec.method}`);
  if (!req.upgrade && rec.bodyComplete) {
    const hash = createHash('sha256').update(req.body).digest('hex');
    if (rec.bodyBytes !== req.body.length || rec.bodyHash !== hash)
      out.push(
        `body changed: sent ${req.body.length} bytes, upstream got ${rec.bodyBytes}${rec.bodyBytes === req.body.length ? ' with another hash' : ''}`,
      );
  }
  const view = nodeView(req.headers);
  const up = recordView(rec);
  const hop = hopSet(view);
  const rerouted = route?.outcome === 'rerouted';
  const allowedExtra = new Set([
    'host',
    'connection',
    'authorization',
    'x-kubernetes-peer-proxied',
    'content-length',
    'transfer-encoding',
    ...(rec.upgrade ? ['upgrade'] : []),
  ]);
  for (const [name, value] of view) {
    if (name === 'host' || name === 'expect' || hop.has(name) || IDENTITY.test(name) || name === 'content-length') continue;
    if (name === 'x-kubernetes-peer-proxied' && rerouted) continue;
    if (up.get(name) !== value)
      out.push(
        `header ${name} changed: sent ${JSON.stringify(value.slice(0, 100))}, upstream got ${JSON.stringify(up.get(name)?.slice(0, 100))}`,
      );
  }
  for (const name of up.keys())
    if (!view.has(name) && !allowedExtra.has(name)) out.push(`upstream got a header the client did not send: ${name}`);
  const clientAuth = hop.has('authorization') ? undefined : view.get('authorization');
  const expectedAuth = clientAuth ?? `Bearer ${SERVER_TOKEN}`;
  if (up.get('authorization') !== expectedAuth)
    out.push(
      `Authorization ${JSON.stringify(up.get('authorization'))} upstream, expected ${clientAuth === CLIENT_TOKEN ? "the client's own" : "the port's token"}`,
    );
  if (rerouted && up.get('x-kubernetes-peer-proxied') !== 'true') out.push('a rerouted request without x-kubernetes-peer-proxied: true');

  // Routing: the GVR as kube-apiserver decodes the path.
  if (!route) return [...out, 'no X-Peerscope-Route on a forwarded request'];
  if (route.answering !== rec.server) out.push(`X-Peerscope-Route says answering=${route.answering}, but ${rec.server} got it`);
  const gvr = req.decodedPath === undefined ? undefined : gvrOfPath(req.decodedPath);
  if (gvr === undefined) return out;
  const serving = Object.entries(ctx.servers)
    .filter(([, gvrs]) => gvrs.some((g) => `${g.group}/${g.version}/${g.resource}` === gvr))
    .map(([n]) => n);
  const loopGuard = view.get('x-kubernetes-peer-proxied') === 'true' && !hop.has('x-kubernetes-peer-proxied');
  let expected: string;
  if (loopGuard || serving.includes(route.handling)) expected = `local at ${route.handling}`;
  else if (serving.length > 0) expected = `rerouted to one of ${serving.join(', ')}`;
  else expected = `notfound at ${route.handling}`;
  const got = route.outcome === 'rerouted' ? `rerouted to ${route.answering}` : `${route.outcome} at ${route.answering}`;
  const ok = expected.startsWith('local')
    ? route.outcome === 'local' && route.answering === route.handling
    : expected.startsWith('rerouted')
      ? route.outcome === 'rerouted' && serving.includes(route.answering)
      : route.outcome === 'notfound' && route.answering === route.handling;
  if (!ok)
    out.push(`routing: GVR ${gvr} (path decoded ${JSON.stringify(req.decodedPath?.slice(0, 120))}) should be ${expected}, was ${got}`);
  return out;
}
