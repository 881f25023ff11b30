// The one resolver of the names a person types for a release: `v1.37.0-dev` (a server's gitVersion),
// `v1.37-dev` (the catalog's name), `1.37`, `v1.37` and a patch release `v1.37.2` all name the catalog's
// release of that minor. A patch release that a running server reports is also matched to that server,
// so a report can say both what it was asked and what it judged against.
import { InputError } from '../util/input-error.js';

interface ParsedRelease {
  readonly major: number;
  readonly minor: number;
  readonly patch?: number;
  /** The pre-release part ("dev", "alpha.1"), without build metadata. */
  readonly pre?: string;
}

const RELEASE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]*)?$/;

function parse(text: string): ParsedRelease | undefined {
  const m = RELEASE.exec(text.trim());
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    ...(m[3] !== undefined ? { patch: Number(m[3]) } : {}),
    ...(m[4] !== undefined ? { pre: m[4] } : {}),
  };
}

/**
 * The one printed form of a release name: `v` first, a pre-release of the minor without its `.0` patch
 * (`v1.37.0-dev` → `v1.37-dev`, as the catalog names it), a patch release whole (`v1.37.2`), a bare minor
 * as `v1.37`; build metadata dropped. A name of another shape is printed as given.
 */
export function canonicalRelease(text: string): string {
  const r = parse(text);
  if (!r) return text.trim();
  const base = `v${r.major}.${r.minor}`;
  if (r.pre !== undefined) return r.patch ? `${base}.${r.patch}-${r.pre}` : `${base}-${r.pre}`;
  return r.patch !== undefined ? `${base}.${r.patch}` : base;
}

/** Whether two names are the same minor of Kubernetes (`v1.37.2` and `v1.37-dev` are). */
export function sameMinor(a: string, b: string): boolean {
  const pa = parse(a);
  const pb = parse(b);
  return pa !== undefined && pb !== undefined && pa.major === pb.major && pa.minor === pb.minor;
}

/** A running server as far as its release goes. */
export interface ReleasedServer {
  readonly name: string;
  readonly gitVersion?: string;
}

/** What a typed release name resolved to. */
export interface ReleaseChoice {
  /** As typed. */
  readonly asked: string;
  /** The catalog's release judged against (its name in the catalog). */
  readonly release: string;
  /** The running servers that report that very release (a patch release, or the gitVersion as given), if any. */
  readonly servers: readonly string[];
  /** One sentence for a report: what was asked and what was judged against. */
  readonly note: string;
}

/**
 * The catalog release `typed` names; an InputError under `flag` listing the catalog's releases when none
 * has that name or minor. An exact catalog name wins; otherwise the catalog's release of the same minor.
 */
export function resolveRelease(
  typed: string,
  catalog: readonly string[],
  flag: string,
  running: readonly ReleasedServer[] = [],
): ReleaseChoice {
  const exact = catalog.find((c) => c === typed.trim() || canonicalRelease(c) === canonicalRelease(typed));
  const ofMinor = exact ?? catalog.find((c) => sameMinor(c, typed));
  if (ofMinor === undefined)
    throw new InputError(flag, `unknown release "${typed}"; the catalog has ${catalog.map(canonicalRelease).join(', ')}`);
  const wanted = canonicalRelease(typed);
  const servers = running.filter((s) => s.gitVersion !== undefined && canonicalRelease(s.gitVersion) === wanted).map((s) => s.name);
  const judged = canonicalRelease(ofMinor);
  const ran = servers.length > 0 ? ` (run by ${servers.join(', ')})` : '';
  const note =
    wanted === judged ? `judged against ${judged}` : `${wanted}${ran} judged against the catalog's ${judged}, its minor's release`;
  return { asked: typed, release: ofMinor, servers, note };
}
