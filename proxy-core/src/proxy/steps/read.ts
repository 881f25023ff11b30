// Reading the request: its target, its head, its path as kube-apiserver decodes it, its class (R2).
import { decodePath, requestInfo } from '../../routing/request-info.js';
import { failure } from '../../util/status.js';
import { CONTROL_PREFIX } from '../context.js';
import { truncate } from '../exchange.js';
import { checkRequestHead } from '../passes/request-head.js';
import type { Step } from './step.js';

/** The target of a plain request must be an absolute path (400). */
export const absoluteTarget: Step = {
  name: 'absolute-target',
  run: (x) =>
    x.path.startsWith('/') ? undefined : failure(400, 'BadRequest', `the request target "${truncate(x.rawUrl)}" is not an absolute path`),
};

/** An upgrade's target must be a decodable absolute path outside the port's own (400). */
export const upgradeTarget: Step = {
  name: 'upgrade-target',
  run(x) {
    x.decoded = x.path.startsWith('/') && !x.path.startsWith(CONTROL_PREFIX) ? decodePath(x.path) : undefined;
    return x.decoded === undefined ? failure(400, 'BadRequest', 'this path cannot be upgraded') : undefined;
  },
};

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

/** Routed by the decoded path, as kube-apiserver reads it; forwarded as sent (400 on a bad escape). */
export const decode: Step = {
  name: 'decode-path',
  run(x) {
    x.decoded = decodePath(x.path);
    return x.decoded === undefined
      ? failure(400, 'BadRequest', `the request path "${truncate(x.path)}" has an invalid percent-encoding`)
      : undefined;
  },
};

/** Resource or not, verb, group, version, resource, namespace (routing/request-info.ts). */
export const classify: Step = {
  name: 'classify',
  run(x) {
    x.info = requestInfo(x.method, x.decoded as string, x.query);
    return undefined;
  },
};
