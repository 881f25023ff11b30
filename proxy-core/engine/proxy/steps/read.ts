// Reading the request: its target, its head, its path as kube-apiserver decodes it, its class (R2).
import type { IncomingMessage } from 'node:http';
import { decodePath, requestInfo } from '../../routing/request-info.js';
import { failure, truncate, type Status } from '../../util/status.js';
import { OWN_ENDPOINTS_PREFIX } from '../context.js';
import type { Step } from './step.js';

/** The target of a plain request must be an absolute path (400). */
export const absoluteTarget: Step = {
  name: 'absolute-target',
  run: (x) =>
    x.path.startsWith('/') ? undefined : failure(400, 'BadRequest', `the request target "${truncate(x.rawUrl)}" is not an absolute path`),
};

/** An upgrade's target must be a decodable absolute path outside the port's own (400). */
export const upgradeTarget: Step<never, 'decoded'> = {
  name: 'upgrade-target',
  fills: ['decoded'],
  run(x) {
    x.decoded = x.path.startsWith('/') && !x.path.startsWith(OWN_ENDPOINTS_PREFIX) ? decodePath(x.path) : undefined;
    return x.decoded === undefined ? failure(400, 'BadRequest', 'this path cannot be upgraded') : undefined;
  },
};

// What the port refuses in a request head that Node's parser lets through, because the port and
// the apiserver behind it could read the message differently (RFC 9112; Go's net/http, in front
// of every kube-apiserver, refuses the same):
// - more than one Host line: 400 (RFC 9112 §3.2). Node keeps the first, so the host check would
//   judge one value while another rode along;
// - a Transfer-Encoding other than exactly `chunked`: 501. Node removes the chunked framing but
//   leaves the other coding (gzip, …) on the body, and a forwarded body without its coding is
//   another message.
export function checkRequestHead(req: IncomingMessage): Status | undefined {
  const raw = req.rawHeaders;
  let hosts = 0;
  let codings = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') codings++;
  }
  if (hosts > 1) return failure(400, 'BadRequest', `the request has ${hosts} Host headers; exactly one is allowed`);
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && (codings > 1 || te.trim().toLowerCase() !== 'chunked')) {
    return failure(501, '', `unsupported Transfer-Encoding ${JSON.stringify(te.slice(0, 200))}: only chunked is accepted`);
  }
  return undefined;
}

/** What a server must not guess at: a second Host line, an unsupported transfer coding (400 / 501). */
export const requestHead: Step = {
  name: 'request-head',
  run(x) {
    const bad = checkRequestHead(x.req);
    // Where the body ends is in doubt: nothing after it on this connection can be trusted.
    if (bad?.code === 501) x.res?.setHeader('connection', 'close');
    return bad;
  },
};

/**
 * Routed by the decoded path, as kube-apiserver reads it; forwarded as sent (400 on a bad escape).
 * A path of the port's own endpoints is no Kubernetes path: it is matched as sent, so a bad escape
 * there is no refusal (the endpoints answer 404), and the filter sees it as sent.
 */
export const decode: Step<never, 'decoded'> = {
  name: 'decode-path',
  fills: ['decoded'],
  run(x) {
    const decoded = decodePath(x.path);
    if (decoded !== undefined) x.decoded = decoded;
    else if (x.path.startsWith(OWN_ENDPOINTS_PREFIX)) x.decoded = x.path;
    else return failure(400, 'BadRequest', `the request path "${truncate(x.path)}" has an invalid percent-encoding`);
    return undefined;
  },
};

/** Resource or not, verb, group, version, resource, namespace (routing/request-info.ts). */
export const classify: Step<'decoded', 'info'> = {
  name: 'classify',
  needs: ['decoded'],
  fills: ['info'],
  run(x) {
    x.info = requestInfo(x.method, x.decoded, x.query);
    return undefined;
  },
};
