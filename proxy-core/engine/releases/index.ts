// The release catalog: the releases the project ships (written by scripts/import-catalog.ts from
// ../shared/fixtures/discovery) plus any an operator loads from their own captured documents.
import { InputError } from '../util/input-error.js';
import { importRelease, readDiscoveryInput } from './importer.js';
import { releaseCatalogSchema, type ReleaseCatalog } from './model.js';
import { bundledReleases } from './bundled/index.js';
import { compareReleases } from '../util/release-order.js';

export * from './model.js';
export { importRelease, readDiscoveryInput, versionOf } from './importer.js';
export * from './render.js';

const parsed = new Map<string, ReleaseCatalog>();

/** Names of the releases the project ships, oldest first. */
export function bundledReleaseNames(): string[] {
  return Object.keys(bundledReleases).sort(compareReleases);
}

/** A bundled release by name, validated on first use. */
export function loadRelease(name: string): ReleaseCatalog {
  const cached = parsed.get(name);
  if (cached) return cached;
  const raw = bundledReleases[name];
  if (!raw)
    throw new InputError(
      '--release',
      `unknown release "${name}"; the catalog has ${bundledReleaseNames().join(', ')} (or load your own with --release-file NAME=FILE)`,
    );
  const catalog = releaseCatalogSchema.parse(raw);
  parsed.set(name, catalog);
  return catalog;
}

/** A release from captured discovery files (`--release-file NAME=FILE`, repeated for /api and /apis). */
export function loadReleaseFiles(name: string, files: readonly string[]): ReleaseCatalog {
  return importRelease(name, files.map(readDiscoveryInput));
}

export { compareReleases };
export { canonicalRelease, resolveRelease, sameMinor, type ReleaseChoice, type ReleasedServer } from './release-names.js';
