import type { Command } from 'commander';
import { bundledReleaseNames, catalogEntries, loadRelease } from '../../engine/releases/index.js';

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('the release catalog the simulated apiservers serve');
  catalog
    .command('list')
    .description('list the bundled releases with their group and resource counts')
    .action(() => {
      for (const name of bundledReleaseNames()) {
        const c = loadRelease(name);
        console.log(`${name}\t${c.gitVersion}\t${c.groups.length} groups\t${[...catalogEntries(c)].length} resources`);
      }
    });
}
