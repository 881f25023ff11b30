// The non-resource paths that belong to one API group or group-version (rule P8): legacy discovery
// `/apis/G` and `/apis/G/V`, and OpenAPI v3 `/openapi/v3/apis/G/V` and `/openapi/v3/api/V`. Only
// these may be answered by a server other than H, so decide() asks this of non-resource GETs only.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.

export type GroupPath =
  /** `/apis/G`: an APIGroup. */
  | { readonly kind: 'legacy-group'; readonly group: string }
  /** `/apis/G/V`: an APIResourceList. */
  | { readonly kind: 'legacy-group-version'; readonly group: string; readonly version: string }
  /** `/openapi/v3/apis/G/V` or `/openapi/v3/api/V` (group ""): one group-version's OpenAPI v3 document. */
  | { readonly kind: 'openapi-v3-group-version'; readonly group: string; readonly version: string };

/** What group or group-version `path` (the decoded path, without query) names; undefined for any other path. */
export function groupPathOf(path: string): GroupPath | undefined {
  // Trailing slashes are kept: kube-apiserver's mux does not match `/apis/apps/` as `/apis/apps`.
  const seg = path.split('/');
  if (seg[0] !== '' || seg.some((s, i) => i > 0 && s === '')) return undefined;
  if (seg[1] === 'apis' && (seg.length === 3 || seg.length === 4)) {
    const group = seg[2] as string;
    return seg.length === 3 ? { kind: 'legacy-group', group } : { kind: 'legacy-group-version', group, version: seg[3] as string };
  }
  if (seg[1] === 'openapi' && seg[2] === 'v3') {
    if (seg[3] === 'apis' && seg.length === 6)
      return { kind: 'openapi-v3-group-version', group: seg[4] as string, version: seg[5] as string };
    if (seg[3] === 'api' && seg.length === 5) return { kind: 'openapi-v3-group-version', group: '', version: seg[4] as string };
  }
  return undefined;
}
