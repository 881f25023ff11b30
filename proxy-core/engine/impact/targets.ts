// Target releases for the impact report: the release catalog's, or one read from captured discovery
// documents (`--release-file NAME=FILE`, as `peerscope sim` takes them).
import { bundledReleaseNames, catalogEntries, compareReleases, loadRelease, type ReleaseCatalog } from '../releases/index.js';
import { InputError } from '../util/input-error.js';
import type { ImpactTarget } from './report.js';

export function targetOf(catalog: ReleaseCatalog): ImpactTarget {
  const gvrs = new Set<string>();
  for (const e of catalogEntries(catalog)) gvrs.add(`${e.group}/${e.version}/${e.resource.name}`);
  return { release: catalog.release, gitVersion: catalog.gitVersion, gvrs };
}

/** A release of the catalog by name; an unknown name is an InputError listing the catalog. */
export function catalogTarget(name: string): ImpactTarget {
  try {
    return targetOf(loadRelease(name));
  } catch (err) {
    if (err instanceof InputError) throw new InputError('--to', err.detail);
    throw err;
  }
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
