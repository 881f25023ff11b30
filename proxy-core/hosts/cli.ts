// The `peerscope` command. Each subcommand lives in proxy-core/hosts/cli/ and is registered here.
import { Command } from 'commander';
import { registerAuditCommand } from './cli/audit.js';
import { registerCatalogCommands } from './cli/catalog.js';
import { helpConfiguration } from './cli/options.js';
import { registerDemoCommand } from './cli/demo.js';
import { registerServersCommand } from './cli/servers.js';
import { registerRecordingCommands } from './cli/recording.js';
import { registerReportCommand } from './cli/report.js';
import { registerServeCommand } from './cli/serve.js';
import { registerSimCommand } from './cli/sim.js';
import { registerSnapshotCommands } from './cli/snapshot.js';
import { fixHeapGrowth } from '../engine/util/heap-growth.js';
import { PEERSCOPE_VERSION } from '../engine/version.js';

// Before any load: keeps the port's CPU per request from depending on the GC's luck (util/heap-growth.ts).
try {
  fixHeapGrowth();
} catch (err) {
  process.stderr.write(`peerscope: ${(err as Error).message}\n`);
  process.exit(2);
}

const program = new Command('peerscope')
  .description('See and route every request of a Kubernetes control-plane upgrade across mixed-version apiservers.')
  .version(PEERSCOPE_VERSION)
  .showHelpAfterError()
  // Defaults in --help as a user types them; subcommands added below inherit this.
  .configureHelp(helpConfiguration);

registerServeCommand(program);
registerDemoCommand(program);
registerSimCommand(program);
registerServersCommand(program);
registerSnapshotCommands(program);
registerReportCommand(program);
registerRecordingCommands(program);
registerAuditCommand(program);
registerCatalogCommands(program);

await program.parseAsync(process.argv);
