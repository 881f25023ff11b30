// Writes the project's release catalog from the reference discovery documents:
//   npx tsx scripts/import-catalog.ts [FIXTURES_DIR]
// FIXTURES_DIR defaults to ../shared/fixtures/discovery; each sub-folder is one release, its
// aggregated_v2.json giving /apis and its api__v1.json the core group.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importRelease, readDiscoveryInput } from '../proxy-core/engine/releases/importer.js';

const fixtures = resolve(process.argv[2] ?? '../shared/fixtures/discovery');
const out = resolve('proxy-core/engine/releases/bundled');
const names: string[] = [];
for (const release of readdirSync(fixtures, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()) {
  const files = ['api__v1.json', 'aggregated_v2.json'].map((f) => join(fixtures, release, f)).filter((f) => existsSync(f));
  const catalog = importRelease(release, files.map(readDiscoveryInput));
  writeFileSync(join(out, `${release}.json`), formatCatalog(catalog));
  const count = catalog.groups.reduce((n, g) => n + g.versions.reduce((m, v) => m + v.resources.length, 0), 0);
  console.log(`${release}: ${catalog.groups.length} groups, ${count} resources`);
  names.push(release);
}
const index = [
  '// Written by scripts/import-catalog.ts; do not edit by hand.',
  ...names.map((n, i) => `import r${i} from './${n}.json' with { type: 'json' };`),
  '',
  'export const bundledReleases: Record<string, unknown> = {',
  ...names.map((n, i) => `  '${n}': r${i},`),
  '};',
  '',
].join('\n');
writeFileSync(join(out, 'index.ts'), index);

/** One resource per line: small files whose diffs read as "this release gained that resource". */
function formatCatalog(catalog: ReturnType<typeof importRelease>): string {
  const { groups, ...head } = catalog;
  const headText = JSON.stringify(head, null, 1).replace(/\n}$/, '');
  const groupText = groups.map((g) => {
    const versions = g.versions.map(
      (v) =>
        `   {"version": ${JSON.stringify(v.version)}, "resources": [\n${v.resources.map((r) => '    ' + JSON.stringify(r)).join(',\n')}\n   ]}`,
    );
    return `  {"name": ${JSON.stringify(g.name)}, "versions": [\n${versions.join(',\n')}\n  ]}`;
  });
  return `${headText},\n "groups": [\n${groupText.join(',\n')}\n ]\n}\n`;
}
