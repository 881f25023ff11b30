// Client-sent front-proxy identity headers are removed before forwarding (spec §3, P7): a
// kube-apiserver trusts X-Remote-* from an authenticating proxy, so a client must never set them.
// Impersonate-* and Authorization stay: the apiserver authenticates and authorises them itself.
import type { IncomingHttpHeaders } from 'node:http';

export function isIdentityHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'x-remote-user' || n === 'x-remote-uid' || n === 'x-remote-group' || n.startsWith('x-remote-extra-');
}

/** Removes the identity headers in place; returns how many were removed. */
export function stripIdentityHeaders(headers: IncomingHttpHeaders): number {
  let removed = 0;
  for (const name of Object.keys(headers)) {
    if (isIdentityHeader(name)) {
      delete headers[name];
      removed++;
    }
  }
  return removed;
}
