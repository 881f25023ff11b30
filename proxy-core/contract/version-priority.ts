// Kubernetes' version priority of an API group's versions (the order kube-apiserver and kubectl call
// "kube-aware"): GA before beta before alpha; within each, the higher major version first, then the
// higher alpha/beta number; strings of another shape last, in code-unit order. Shared by the merged
// discovery documents (rule P9), the upgrade-impact report and the Discovery screen.

const KUBE_VERSION = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

/** How the port orders each group's versions in the merged discovery documents (rule P9; D2 with `--faithful`). */
export type VersionOrder = 'priority' | 'as-served';

const STABILITY = { ga: 0, beta: 1, alpha: 2 } as const;

/** Negative when `a` comes first (has the higher priority): sorts ["v1alpha1", "v1", "v2beta1"] to ["v1", "v2beta1", "v1alpha1"]. */
export function compareVersionPriority(a: string, b: string): number {
  const pa = KUBE_VERSION.exec(a);
  const pb = KUBE_VERSION.exec(b);
  if (!pa || !pb) {
    if (pa || pb) return pa ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = STABILITY[(pa[2] ?? 'ga') as keyof typeof STABILITY] - STABILITY[(pb[2] ?? 'ga') as keyof typeof STABILITY];
  if (stability !== 0) return stability;
  const major = Number(pb[1]) - Number(pa[1]);
  if (major !== 0) return major;
  return Number(pb[3] ?? 0) - Number(pa[3] ?? 0);
}

/** The versions in priority order (a new array). */
export function byVersionPriority(versions: readonly string[]): string[] {
  return [...versions].sort(compareVersionPriority);
}

/** True when the list is already in priority order. */
export function inVersionPriority(versions: readonly string[]): boolean {
  for (let i = 1; i < versions.length; i++) if (compareVersionPriority(versions[i - 1]!, versions[i]!) > 0) return false;
  return true;
}
