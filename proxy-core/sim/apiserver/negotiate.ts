// Accept-header negotiation (RFC 9110 with Kubernetes' media-type parameters g, v, as, profile).
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

/** The ranges of an Accept header, most preferred first (stable for equal q). Empty header = `*\/*`. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [typeText = '', ...paramTexts] = part.split(';').map((s) => s.trim());
    const [type = '', subtype = ''] = typeText.toLowerCase().split('/');
    if (!type || !subtype) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of paramTexts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
      else params[key] = value;
    }
    if (q > 0) ranges.push({ type, subtype, params, q });
  }
  return ranges
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || a.i - b.i)
    .map((x) => x.r);
}

/** True when the range accepts plain JSON (no Kubernetes g/v/as parameters). */
export function acceptsPlainJson(range: MediaRange): boolean {
  if (range.params.g || range.params.v || range.params.as) return false;
  if (range.type === '*' && range.subtype === '*') return true;
  return range.type === 'application' && (range.subtype === 'json' || range.subtype === '*');
}

/** True when the range asks for a Kubernetes JSON "as" form, e.g. Table of meta.k8s.io/v1. */
export function isJsonAs(range: MediaRange, group: string, version: string, as: string): boolean {
  return (
    range.type === 'application' &&
    range.subtype === 'json' &&
    range.params.g === group &&
    range.params.v === version &&
    range.params.as === as
  );
}
