// kube-apiserver's reading of a request path: Go's percent-decoding, and which GVR a resource
// request names. The renderer and the oracle use it to know how a path routes.

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

/** Go's url.PathUnescape applied to a request path: %XX → byte; an invalid escape fails. Bytes as latin1. */
export function goDecodePath(path: string): string | undefined {
  if (!path.includes('%')) return path;
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string;
    if (c !== '%') {
      out += c;
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
    out += String.fromCharCode(Number.parseInt(hex, 16));
    i += 2;
  }
  return out;
}
