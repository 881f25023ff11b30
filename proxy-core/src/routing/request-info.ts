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
  const segments = trimmed === '' ? [] : trimmed.split('/');
  if (segments.length < 3 || !API_PREFIXES.has(segments[0] as string)) return nonResource(method, path);
  const apiPrefix = segments[0] as string;
  let rest = segments.slice(1);
  let apiGroup = '';
  if (apiPrefix !== GROUPLESS_PREFIX) {
    // /apis/G/V/R needs four segments: /apis, /apis/G and /apis/G/V are discovery (non-resource).
    if (rest.length < 3) return nonResource(method, path);
    apiGroup = rest[0] as string;
    rest = rest.slice(1);
  }
  const apiVersion = rest[0] as string;
  rest = rest.slice(1);

  let verb = VERB_BY_METHOD[method.toUpperCase()] ?? '';
  // A special verb as a path prefix: /api/v1/watch/pods, /api/v1/proxy/namespaces/ns/pods/p.
  if (rest[0] === 'watch' || rest[0] === 'proxy') {
    if (rest.length < 2) return nonResource(method, path);
    verb = rest[0];
    rest = rest.slice(1);
  }

  let namespace = '';
  let parts: string[];
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1] as string;
      // namespaces/{ns}/{resource}…, except namespaces/{ns}/status|finalize: the namespace itself.
      parts = rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string) ? rest.slice(2) : rest;
    } else {
      parts = rest;
    }
  } else {
    parts = rest;
  }
  if (parts.length === 0 || parts[0] === '') return nonResource(method, path);

  const resource = parts[0] as string;
  let name = parts.length >= 2 ? (parts[1] as string) : '';
  // Under the proxy verb, whatever follows the name is the proxied path, not a subresource.
  const subresource = parts.length >= 3 && verb !== 'proxy' ? (parts[2] as string) : '';

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
        if (eq > 0 && term[eq - 1] !== '!' && (key === 'metadata.name')) name = term.slice(term[eq + 1] === '=' ? eq + 2 : eq + 1).trim();
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
