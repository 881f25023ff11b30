// Request classification as kube-apiserver's RequestInfoFactory does it (rule R2): resource vs
// non-resource, verb (incl. list, watch, deletecollection), group, version, resource, subresource,
// namespace and name. Called once per request: one split and index checks, no regexes; the query is
// only parsed for a GET without a name (list vs watch, fieldSelector name).
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** Lowercase HTTP method for non-resource requests; the Kubernetes verb otherwise ("" for an unknown method). */
  readonly verb: string;
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The path segments from the resource on: resource[/name[/subresource[/…]]]. */
  readonly parts: readonly string[];
}

const GROUPLESS_PREFIX = 'api';
const GROUP_PREFIX = 'apis';
const NO_PARTS: readonly string[] = Object.freeze([]);

/** The methods RequestInfoFactory maps to verbs; matched case-sensitively like Go's switch. */
function verbOfMethod(method: string): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: NO_PARTS,
  };
}

/**
 * The path as kube-apiserver classifies it (Go's URL.Path): every %XX decoded to its byte (shown as
 * the latin1 character, as Node shows raw bytes), `+` left alone; undefined for an invalid escape,
 * which Go's server refuses with 400. The request is still forwarded with its path as sent.
 */
export function decodePath(path: string): string | undefined {
  if (!path.includes('%')) return path;
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c !== 37 /* % */) {
      out += path[i];
      continue;
    }
    const hi = hexValue(path.charCodeAt(i + 1));
    const lo = hexValue(path.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) return undefined;
    out += String.fromCharCode(hi * 16 + lo);
    i += 2;
  }
  return out;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** `query` is the raw query string (without "?") or parsed parameters. */
export function requestInfo(method: string, path: string, query: string | URLSearchParams = ''): RequestInfo {
  const trimmed = trimSlashes(path);
  if (trimmed === '') return nonResource(method, path);
  const seg = trimmed.split('/');
  const n = seg.length;
  // R2: fewer than 3 segments, or a prefix other than api/apis, is never a resource request.
  if (n < 3) return nonResource(method, path);
  const apiPrefix = seg[0] as string;
  if (apiPrefix !== GROUPLESS_PREFIX && apiPrefix !== GROUP_PREFIX) return nonResource(method, path);
  // i walks the segments without copying them.
  let i = 1;
  let apiGroup = '';
  if (apiPrefix === GROUP_PREFIX) {
    // /apis/G/V/R needs four segments: /apis, /apis/G and /apis/G/V are discovery (non-resource).
    if (n < 4) return nonResource(method, path);
    apiGroup = seg[i++] as string;
  }
  const apiVersion = seg[i++] as string;

  let verb: string;
  let verbViaPathPrefix = false;
  // A special verb as a path prefix (/api/v1/watch/pods): removed before the resource is read.
  if (seg[i] === 'watch' || seg[i] === 'proxy') {
    // kube-apiserver fails such a request (500) before any routing; H answers it, so it is H's own.
    if (n - i < 2) return nonResource(method, path);
    verb = seg[i++] as string;
    verbViaPathPrefix = true;
  } else {
    verb = verbOfMethod(method);
  }

  let namespace = '';
  if (seg[i] === 'namespaces' && n - i > 1) {
    namespace = seg[i + 1] as string;
    // namespaces/{ns}/{resource}…, except namespaces/{ns}/status|finalize: the namespace itself.
    const next = seg[i + 2];
    if (next !== undefined && next !== 'status' && next !== 'finalize') i += 2;
  }

  const remaining = n - i;
  const resource = seg[i] as string;
  let name = remaining >= 2 ? (seg[i + 1] as string) : '';
  // Under a path-prefix verb (watch, proxy) whatever follows the name is not a subresource.
  const subresource = remaining >= 3 && !verbViaPathPrefix ? (seg[i + 2] as string) : '';
  const parts = seg.slice(i);

  if (name === '' && verb === 'get') {
    const params = typeof query === 'string' ? undefined : query;
    const raw = typeof query === 'string' ? query : '';
    verb = isWatch(queryParam(params, raw, 'watch')) ? 'watch' : 'list';
    // A list or watch of exactly one object by field selector names it.
    const selector = queryParam(params, raw, 'fieldSelector');
    if (selector) name = exactMetadataName(selector) ?? '';
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts };
}

/** Query booleans as apimachinery converts them: absent → false; "0" or "false" (any case) → false; else true. */
function isWatch(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * The name a field selector pins (`metadata.name=X` or `==X`), parsed as apimachinery's fields
 * selector does: terms split on unescaped commas and taken in sorted order, the first operator of
 * a term splits it (`!=`, `==`, `=`), values unescaped (`\\`, `\,`, `\=`). A selector that does not
 * parse names nothing (kube-apiserver then drops all list options but watch); a name that is not a
 * valid path segment is ignored.
 */
export function exactMetadataName(selector: string): string | undefined {
  const terms = splitTerms(selector).sort();
  let found: string | undefined;
  for (const term of terms) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) return undefined;
    const value = unescapeValue(split.value);
    if (value === undefined) return undefined;
    if (found === undefined && split.op !== '!=' && split.field === 'metadata.name') found = value;
  }
  if (found === undefined || found === '.' || found === '..' || found.includes('/') || found.includes('%')) return undefined;
  return found;
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector.charCodeAt(i);
    if (escaped) escaped = false;
    else if (c === 92 /* \ */) escaped = true;
    else if (c === 44 /* , */) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): { field: string; op: string; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(value: string): string | undefined {
  let out = '';
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') return undefined;
      out += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === ',' || c === '=') return undefined;
    else out += c;
  }
  return escaped ? undefined : out;
}

function trimSlashes(p: string): string {
  let start = 0;
  let end = p.length;
  while (start < end && p.charCodeAt(start) === 47) start++;
  while (end > start && p.charCodeAt(end - 1) === 47) end--;
  return start === 0 && end === p.length ? p : p.slice(start, end);
}

function queryParam(params: URLSearchParams | undefined, raw: string, key: string): string | undefined {
  if (params) return params.get(key) ?? undefined;
  // A percent-encoded name (%77atch) decodes to the key too, as Go's url.Query decodes it.
  if (raw === '' || (!raw.includes(key) && !raw.includes('%'))) return undefined;
  return new URLSearchParams(raw).get(key) ?? undefined;
}
