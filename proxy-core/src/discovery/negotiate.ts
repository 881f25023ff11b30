// Which discovery representation an Accept header asks for (spec D1), as kube-apiserver negotiates:
// the first acceptable type in the client's order of preference (q-values, then position) among
// aggregated v2 (JSON or protobuf), aggregated v2beta1 and legacy JSON / protobuf.
export type DiscoveryRepresentation =
  | { readonly kind: 'aggregated'; readonly version: 'v2' | 'v2beta1'; readonly encoding: 'json' | 'protobuf'; readonly profile: string | undefined }
  | { readonly kind: 'legacy' };

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly index: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  header.split(',').forEach((part, index) => {
    const [type = '', ...rawParams] = part.split(';').map((p) => p.trim());
    if (!type) return;
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq <= 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
      else params.set(k, v);
    }
    out.push({ type: type.toLowerCase(), params, q, index });
  });
  return out.filter((m) => m.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
}

export function negotiateDiscovery(accept: string | undefined): DiscoveryRepresentation {
  for (const m of parseAccept(accept)) {
    const isJson = m.type === 'application/json';
    const isProto = m.type === 'application/vnd.kubernetes.protobuf';
    if ((isJson || isProto) && m.params.get('g') === 'apidiscovery.k8s.io' && m.params.get('as') === 'APIGroupDiscoveryList') {
      const v = m.params.get('v');
      if (v === 'v2' || v === 'v2beta1') return { kind: 'aggregated', version: v, encoding: isJson ? 'json' : 'protobuf', profile: m.params.get('profile') };
      continue; // an unknown version is not acceptable: try the next range
    }
    if ((isJson || isProto || m.type === '*/*' || m.type === 'application/*') && !m.params.has('g')) return { kind: 'legacy' };
  }
  return { kind: 'legacy' };
}
