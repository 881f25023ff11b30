// `/openapi/v2` as kube-apiserver's handler (kube-openapi, Go's http.ServeContent) answers it: which
// encoding an Accept header asks for — clauses in goautoneg's order (negotiate.ts's parseAccept), the
// first clause whose type and subtype match a served form wins (parameters are not compared), no
// header means any, JSON is tried first so `*/*` gets JSON, no match is the server's 406 (H answers
// it) — and when a conditional request is answered 304.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { parseAccept } from './negotiate.js';

export type OpenApiV2Encoding = 'json' | 'protobuf';

export const OPENAPI_V2_PATH = '/openapi/v2';

/** The Content-Type kube-apiserver answers the protobuf form with (either Accept form). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** The forms kube-openapi serves, in its order; the `@` form is the one client-go asks for. */
const SERVED: readonly { readonly subtype: string; readonly encoding: OpenApiV2Encoding }[] = [
  { subtype: 'json', encoding: 'json' },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', encoding: 'protobuf' },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', encoding: 'protobuf' },
];

/** The encoding the server would answer `accept` with; undefined when it would answer 406. */
export function negotiateOpenApiV2(accept: string | undefined): OpenApiV2Encoding | undefined {
  const clauses = parseAccept(accept && accept.trim() !== '' ? accept : '*/*');
  for (const clause of clauses) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    const served = SERVED.find((s) => clause.subtype === s.subtype || clause.subtype === '*');
    if (served) return served.encoding;
  }
  return undefined;
}

/**
 * Whether a GET/HEAD is answered 304, as http.ServeContent decides: If-None-Match (a list; `*`; weak
 * comparison) when present, else If-Modified-Since against the document's Last-Modified (whole seconds).
 */
export function openApiV2NotModified(
  ifNoneMatch: string | undefined,
  ifModifiedSince: string | undefined,
  etag: string,
  lastModified: string,
): boolean {
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '') {
    const bare = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag.trim()) === bare(etag));
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  const modified = Date.parse(lastModified);
  return Number.isFinite(since) && Number.isFinite(modified) && modified <= since;
}
