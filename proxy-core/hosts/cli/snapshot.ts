// `peerscope snapshot save | diff | show`: routing snapshots from the command line — of a running
// Peerscope, of a cluster read directly, or of a moment of a recording (`--recording FILE --at TIME`). Their
// flags are here; what they run (snapshot-run.ts) is loaded when one runs.
import { Option, type Command } from 'commander';
import { addPortUrlOptions, outputOption, portUrlOf } from './options.js';
import { parseTime } from './recording-report.js';
import type { SaveFlags } from './snapshot-run.js';

export function registerSnapshotCommands(program: Command): void {
  const snapshot = program.command('snapshot').description('export, compare and read routing snapshots');
  const save = snapshot
    .command('save')
    .description(
      'save the routing state to a file: of a running `peerscope serve` or `demo` (--port-url), or of a cluster read directly (--kubeconfig)',
    )
    .requiredOption('--out <file>', 'where to write the snapshot (- for standard output)');
  addPortUrlOptions(save)
    .option(
      '--kubeconfig <file>',
      "take the snapshot directly: find every apiserver of this kubeconfig's cluster and read each one's discovery (no running Peerscope needed; no routing events)",
    )
    .option('--context <name>', 'with --kubeconfig: the context (default: current-context)')
    .option(
      '--recording <file>',
      'take the snapshot of a moment of a recording (as serve and demo write them): with --at; what the recording does not hold is left out and named',
    )
    .addOption(
      new Option('--at <time>', 'with --recording: the moment, an ISO 8601 time (e.g. 2026-11-27T14:32:00Z) or epoch ms').argParser(
        parseTime('--at'),
      ),
    )
    .action(async (flags: SaveFlags) => (await import('./snapshot-run.js')).saveSnapshot(flags, () => portUrlOf(flags, save)));
  snapshot
    .command('diff')
    .description('compare two snapshots: servers upgraded, GVRs gained and lost, skew, outcome shares')
    .argument('<before>', 'the earlier snapshot file')
    .argument('<after>', 'the later snapshot file')
    .addOption(outputOption(['text', 'json']))
    .action(async (before: string, after: string, flags: { output: 'text' | 'json' }) =>
      (await import('./snapshot-run.js')).diffSnapshotFiles(before, after, flags),
    );
  snapshot
    .command('show')
    .description('summarise a snapshot file')
    .argument('<file>')
    .addOption(outputOption(['text', 'json']))
    .action(async (file: string, flags: { output: 'text' | 'json' }) => (await import('./snapshot-run.js')).showSnapshot(file, flags));
}
