// Request classification exactly as kube-apiserver's RequestInfoFactory does it (spec R2):
// resource vs non-resource, verb (incl. list, watch, deletecollection), group, version, resource,
// subresource, namespace and name. Called per request: splits and index checks, no regexes.
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** Lowercase HTTP method for non-resource requests; the Kubernetes verb otherwise. */
  readonly verb: string;
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly parts: readonly string[];
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIX = 'api';
/** Subresources of a namespace that sit where a namespaced resource would (namespaces/foo/status). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const VERB_BY_METHOD: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
}

/** `query` is the raw query string (without "?") or parsed parameters. */
export function requestInfo(method: string, path: string, query: string | URLSearchParams = ''): RequestInfo {
  const trimmed = trimSlashes(path);
  const seg = trimmed === '' ? [] : trimmed.split('/');
  const n = seg.length;
  if (n < 3) return nonResource(method, path);
  const apiPrefix = seg[0] as string;
  if (!API_PREFIXES.has(apiPrefix)) return nonResource(method, path);
  // i walks the segments without copying them.
  let i = 1;
  let apiGroup = '';
  if (apiPrefix !== GROUPLESS_PREFIX) {
    // /apis/G/V/R needs four segments: /apis, /apis/G and /apis/G/V are discovery (non-resource).
    if (n < 4) return nonResource(method, path);
    apiGroup = seg[i++] as string;
  }
  const apiVersion = seg[i++] as string;

  let verb = VERB_BY_METHOD[method] ?? VERB_BY_METHOD[method.toUpperCase()] ?? '';
  // A special verb as a path prefix: /api/v1/watch/pods, /api/v1/proxy/namespaces/ns/pods/p.
  if (seg[i] === 'watch' || seg[i] === 'proxy') {
    if (n - i < 2) return nonResource(method, path);
    verb = seg[i++] as string;
  }

  let namespace = '';
  if (seg[i] === 'namespaces' && n - i > 1) {
    namespace = seg[i + 1] as string;
    // namespaces/{ns}/{resource}…, except namespaces/{ns}/status|finalize: the namespace itself.
    if (n - i > 2 && !NAMESPACE_SUBRESOURCES.has(seg[i + 2] as string)) i += 2;
  }
  if (i >= n || seg[i] === '') return nonResource(method, path);

  const resource = seg[i] as string;
  let name = n - i >= 2 ? (seg[i + 1] as string) : '';
  // Under the proxy verb, whatever follows the name is the proxied path, not a subresource.
  const subresource = n - i >= 3 && verb !== 'proxy' ? (seg[i + 2] as string) : '';
  const parts = i === 0 ? seg : seg.slice(i);

  const params = typeof query === 'string' ? undefined : query;
  const raw = typeof query === 'string' ? query : '';
  if (name === '' && verb === 'get') {
    const watch = queryParam(params, raw, 'watch');
    verb = watch !== undefined && watch !== 'false' && watch !== '0' ? 'watch' : 'list';
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  if (verb === 'list' || verb === 'watch') {
    // A list or watch of one object by field selector names it (requestinfo.go).
    const selector = queryParam(params, raw, 'fieldSelector');
    if (selector) {
      for (const term of selector.split(',')) {
        const eq = term.indexOf('=');
        const key = term.slice(0, eq).trim();
        if (eq > 0 && term[eq - 1] !== '!' && key === 'metadata.name') name = term.slice(term[eq + 1] === '=' ? eq + 2 : eq + 1).trim();
      }
    }
  }
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts };
}

function trimSlashes(p: string): string {
  let start = 0;
  let end = p.length;
  while (start < end && p.charCodeAt(start) === 47) start++;
  while (end > start && p.charCodeAt(end - 1) === 47) end--;
  return p.slice(start, end);
}

function queryParam(params: URLSearchParams | undefined, raw: string, key: string): string | undefined {
  if (params) return params.get(key) ?? undefined;
  if (raw === '' || !raw.includes(key)) return undefined;
  return new URLSearchParams(raw).get(key) ?? undefined;
}
