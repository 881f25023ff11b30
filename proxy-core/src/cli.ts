// The `peerscope` command. Each subcommand lives in proxy-core/src/cli/ and is registered here.
import { Command } from 'commander';
import { registerCatalogCommands } from './cli/catalog.js';

const program = new Command('peerscope')
  .description('See and route every request of a Kubernetes control-plane upgrade across mixed-version apiservers.')
  .version('0.1.0')
  .showHelpAfterError();

registerCatalogCommands(program);

await program.parseAsync(process.argv);
