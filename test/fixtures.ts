// Where the shared reference data lives: ../shared beside the checkout (CI clones main with
// shared/ beside it). The files are read in place, never copied into the project.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const discoveryFixturesDir = join(repoRoot, '..', 'shared', 'fixtures', 'discovery');

export function fixtureReleases(): string[] {
  if (!existsSync(discoveryFixturesDir)) {
    throw new Error(`the shared discovery fixtures are missing at ${discoveryFixturesDir}: clone the project with shared/ beside it`);
  }
  return readdirSync(discoveryFixturesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function readFixture(release: string, file: 'aggregated_v2.json' | 'api__v1.json'): unknown {
  return JSON.parse(readFileSync(join(discoveryFixturesDir, release, file), 'utf8'));
}

export function fixturePath(release: string, file: 'aggregated_v2.json' | 'api__v1.json'): string {
  return join(discoveryFixturesDir, release, file);
}

/** Drops `storageVersionHash`, which the catalog does not keep (see docs/decisions.md). */
export function withoutStorageHashes<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc, (k, v) => (k === 'storageVersionHash' ? undefined : v))) as T;
}
