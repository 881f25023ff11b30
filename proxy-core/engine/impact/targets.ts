// Target releases for the impact report: the release catalog's, or one read from captured discovery
// documents (`--release-file NAME=FILE`, as `peerscope sim` takes them).
import {
  bundledReleaseNames,
  catalogEntries,
  compareReleases,
  loadRelease,
  resolveRelease,
  type ReleaseCatalog,
  type ReleasedServer,
} from '../releases/index.js';
import type { ImpactTarget } from './report.js';

export function targetOf(catalog: ReleaseCatalog): ImpactTarget {
  const gvrs = new Set<string>();
  for (const e of catalogEntries(catalog)) gvrs.add(`${e.group}/${e.version}/${e.resource.name}`);
  return { release: catalog.release, gitVersion: catalog.gitVersion, gvrs };
}

/**
 * The catalog release `name` names as an operator types it (`v1.37.2`, `1.37`, `v1.37.0-dev`: the
 * catalog's release of that minor; releases/release-names.ts), with what was asked and what it was
 * judged against; an unknown name is an InputError under `flag` listing the catalog.
 */
export function catalogTarget(name: string, running: readonly ReleasedServer[] = [], flag = '--to'): ImpactTarget {
  const choice = resolveRelease(name, bundledReleaseNames(), flag, running);
  return { ...targetOf(loadRelease(choice.release)), asked: name, note: choice.note };
}

export function catalogTargetNames(): string[] {
  return bundledReleaseNames();
}

/** The next release: the oldest one of the catalog above every current server's; else the newest. */
export function defaultTargetName(currentGitVersions: readonly (string | undefined)[]): string {
  const names = bundledReleaseNames();
  const known = currentGitVersions.filter((v): v is string => v !== undefined);
  const above = names.filter((n) => known.every((v) => compareReleases(n, v) > 0));
  return above[0] ?? (names.at(-1) as string);
}
