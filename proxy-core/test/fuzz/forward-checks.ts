// What the oracle demands of a request that reached an upstream: security (one Host, a path
// target, no client identity or hop-by-hop headers, the target unchanged) for any request, and
// fidelity (method, body, end-to-end headers, credential, routing by GVR) for a well-formed one.
import { createHash } from 'node:crypto';
import type { Route } from './answer-readers.js';
import { CLIENT_TOKEN, SERVER_TOKEN } from './cluster.js';
import { hopSet, IDENTITY, nodeView, recordView } from './header-views.js';
import { gvrOfPath } from './kube-path.js';
import type { OracleContext } from './oracle-context.js';
import type { Rendered } from './rendered.js';
import type { UpstreamRecord } from './upstream.js';

/** What must hold for anything that reached an upstream, whatever the request looked like. */
export function securityOf(ctx: OracleContext, req: Rendered, rec: UpstreamRecord): string[] {
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
export function fidelityOf(ctx: OracleContext, req: Rendered, rec: UpstreamRecord, route: Route | undefined): string[] {
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
