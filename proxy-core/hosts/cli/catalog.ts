// `peerscope catalog list`: the releases the simulated apiservers can serve, by the one name each is
// known by (releases/release-names.ts), with what each serves.
import type { Command } from 'commander';
import { bundledReleaseNames, canonicalRelease, catalogEntries, loadRelease } from '../../engine/releases/index.js';
import { formatTable } from '../../engine/util/text-table.js';
import { outputOption } from './options.js';

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('the release catalog the simulated apiservers serve');
  catalog
    .command('list')
    .description('list the bundled releases with their group and resource counts')
    .addOption(outputOption(['text', 'json']))
    .action((flags: { output: 'text' | 'json' }) => {
      const rows = bundledReleaseNames().map((name) => {
        const c = loadRelease(name);
        return {
          release: canonicalRelease(name),
          gitVersion: c.gitVersion,
          groups: c.groups.length,
          resources: [...catalogEntries(c)].length,
        };
      });
      if (flags.output === 'json') {
        process.stdout.write(JSON.stringify({ releases: rows }, null, 2) + '\n');
        return;
      }
      const table = [['RELEASE', 'GROUPS', 'RESOURCES'], ...rows.map((r) => [r.release, String(r.groups), String(r.resources)])];
      for (const line of formatTable(table)) console.log(line);
    });
}
