// kube-apiserver's reading of a decoded request path: which GVR a resource request names. The
// oracle uses it to know which servers should handle a forwarded request.

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
