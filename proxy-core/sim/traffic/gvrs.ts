// The GVRs the generator asks for: the union of what the releases in play serve, and which of them
// the controllers' reflectors watch.
import { catalogEntries, type ReleaseCatalog } from '../../engine/releases/index.js';
import { isWritable } from './objects.js';

export interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: ReadonlySet<string>;
  readonly key: string;
  /** Served by only some of the releases: the GVRs a rollout makes appear or vanish. */
  readonly skewed: boolean;
}

export function unionGvrs(releases: readonly ReleaseCatalog[]): Gvr[] {
  // Three servers at two releases are two releases here: skew is about what the releases serve.
  const distinct = [...new Set(releases)];
  const servedBy = new Map<string, number>();
  const out = new Map<string, Omit<Gvr, 'skewed'>>();
  for (const r of distinct) {
    for (const e of catalogEntries(r)) {
      const key = `${e.group}/${e.version}/${e.resource.name}`;
      servedBy.set(key, (servedBy.get(key) ?? 0) + 1);
      if (!out.has(key))
        out.set(key, {
          group: e.group,
          version: e.version,
          resource: e.resource.name,
          kind: e.resource.kind,
          namespaced: e.resource.namespaced,
          verbs: new Set(e.resource.verbs),
          key,
        });
    }
  }
  return [...out.values()].map((g) => ({ ...g, skewed: (servedBy.get(g.key) ?? 0) < distinct.length }));
}

/** Watched GVRs: alternately one that every release serves and one only some serve (a new API's controller). */
export function chooseWatched(listable: readonly Gvr[], count: number): Gvr[] {
  const watchable = listable.filter((g) => g.verbs.has('watch'));
  // configmaps first, then the other kinds the generator writes: those watches see events.
  const rank = (g: Gvr) => (g.key === '/v1/configmaps' ? 2 : isWritable(g.key) ? 1 : 0);
  const common = watchable.filter((g) => !g.skewed).sort((a, b) => rank(b) - rank(a));
  const skewed = watchable.filter((g) => g.skewed).sort((a, b) => rank(b) - rank(a));
  const out: Gvr[] = [];
  for (let i = 0; out.length < count && (i < common.length || i < skewed.length); i++) {
    for (const g of [common[i], skewed[i]]) if (g && out.length < count) out.push(g);
  }
  return out;
}
