// Which discovery representation an Accept header asks for (rule D1), as kube-apiserver's wrapper
// negotiates it: clauses ordered like goautoneg (q descending; then a concrete type before a
// wildcard, and more parameters before fewer; ties keep header order), and the first clause that
// matches a discovery media type wins. A clause carrying `g`, `v` or `as` is acceptable only as
// aggregated discovery (apidiscovery.k8s.io, APIGroupDiscoveryList, v2 or v2beta1); any other
// acceptable clause, an empty header, or no acceptable clause at all means the legacy handler.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
export type DiscoveryRepresentation =
  | {
      readonly kind: 'aggregated';
      readonly version: 'v2' | 'v2beta1';
      readonly encoding: 'json' | 'protobuf';
      readonly profile: string | undefined;
    }
  | { readonly kind: 'legacy' };

export interface MediaRange {
  /** Lowercase "type/subtype". */
  readonly type: string;
  readonly subtype: string;
  /** Parameters other than q, keys lowercased, values unquoted. */
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly index: number;
}

const LEGACY: DiscoveryRepresentation = Object.freeze({ kind: 'legacy' });
const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_KIND = 'APIGroupDiscoveryList';

/** The encodings a discovery endpoint serves that Peerscope distinguishes, in the server's order. */
const SERVED: readonly { readonly type: string; readonly subtype: string; readonly encoding: 'json' | 'protobuf' | undefined }[] = [
  { type: 'application', subtype: 'json', encoding: 'json' },
  // Served by kube-apiserver too; aggregated YAML is left to H (it never gets merged here).
  { type: 'application', subtype: 'yaml', encoding: undefined },
  { type: 'application', subtype: 'vnd.kubernetes.protobuf', encoding: 'protobuf' },
];

/** The clauses of an Accept header in the order they are tried; q=0 clauses are not acceptable. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  const clauses = header.split(',');
  for (let index = 0; index < clauses.length; index++) {
    const [mediaType = '', ...rawParams] = (clauses[index] as string).split(';');
    const full = mediaType.trim().toLowerCase();
    if (full === '') continue;
    const slash = full.indexOf('/');
    const type = slash < 0 ? full : full.slice(0, slash);
    const subtype = slash < 0 ? '*' : full.slice(slash + 1);
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq <= 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      let value = p.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? n : 0;
      } else params.set(key, value);
    }
    if (q > 0) out.push({ type, subtype, params, q, index });
  }
  return out.sort(byPreference);
}

function byPreference(a: MediaRange, b: MediaRange): number {
  if (a.q !== b.q) return b.q - a.q;
  const aWildType = a.type === '*' ? 1 : 0;
  const bWildType = b.type === '*' ? 1 : 0;
  if (aWildType !== bWildType) return aWildType - bWildType;
  const aWildSub = a.subtype === '*' ? 1 : 0;
  const bWildSub = b.subtype === '*' ? 1 : 0;
  if (aWildSub !== bWildSub) return aWildSub - bWildSub;
  if (a.params.size !== b.params.size) return b.params.size - a.params.size;
  return a.index - b.index;
}

export function negotiateDiscovery(accept: string | undefined): DiscoveryRepresentation {
  for (const clause of parseAccept(accept)) {
    for (const served of SERVED) {
      const matches =
        (clause.type === served.type && (clause.subtype === served.subtype || clause.subtype === '*')) ||
        (clause.type === '*' && clause.subtype === '*');
      if (!matches) continue;
      const g = clause.params.get('g');
      const v = clause.params.get('v');
      const as = clause.params.get('as');
      // No conversion asked for: the unaggregated (legacy) handler answers.
      if (g === undefined && v === undefined && as === undefined) return LEGACY;
      // A conversion other than aggregated discovery is not acceptable: try the next clause.
      if (g !== AGGREGATED_GROUP || as !== AGGREGATED_KIND || (v !== 'v2' && v !== 'v2beta1')) break;
      if (served.encoding === undefined) return LEGACY;
      return { kind: 'aggregated', version: v, encoding: served.encoding, profile: clause.params.get('profile') };
    }
  }
  return LEGACY;
}

/**
 * Whether the header also accepts the aggregated v2 document as JSON. Peerscope encodes its merged
 * document as JSON only, so a client preferring protobuf but accepting JSON (kubectl) gets JSON.
 */
export function acceptsAggregatedV2Json(accept: string | undefined): boolean {
  return parseAccept(accept).some(
    (m) =>
      m.type === 'application' &&
      m.subtype === 'json' &&
      m.params.get('g') === AGGREGATED_GROUP &&
      m.params.get('v') === 'v2' &&
      m.params.get('as') === AGGREGATED_KIND,
  );
}

/**
 * Whether an answer the port writes itself as plain JSON (legacy APIGroupList, OpenAPI v3 index) fits
 * this Accept: the first
 * acceptable clause without a conversion (g, v, as) is JSON or a wildcard; no header means JSON, as
 * kube-apiserver answers then. A client preferring YAML or protobuf gets H's own answer.
 */
export function takesPlainJson(accept: string | undefined): boolean {
  if (!accept || accept.trim() === '') return true;
  for (const clause of parseAccept(accept)) {
    if (clause.params.has('g') || clause.params.has('v') || clause.params.has('as')) continue;
    if (clause.type === '*') return true;
    if (clause.type !== 'application') continue;
    if (clause.subtype === 'json' || clause.subtype === '*') return true;
    if (clause.subtype === 'yaml' || clause.subtype === 'vnd.kubernetes.protobuf') return false;
  }
  return false;
}
