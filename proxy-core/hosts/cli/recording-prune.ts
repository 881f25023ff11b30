// `peerscope recording prune`: the retention cap applied to a recordings folder from the command line
// (by default the app's browser-mode folder, under its settings file's cap), each removal with why.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { applyRetention, formatBytes } from '../../engine/recording/retention.js';
import { readRetentionSettings, xdgRecordingsFolder } from '../session/recordings-folder.js';

interface PruneFlags {
  maxSize?: number;
  maxAge?: number;
  dryRun: boolean;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
};

/** "5GiB", "500M", "1048576" as bytes (binary units). */
export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0) throw new InvalidArgumentError(`"${value}" is not a size (for example 5GiB, 500MiB)`);
  return Math.round(Number(m[1]) * unit);
}

/** "14d", "36h", "90m" as days. */
export function parseAge(value: string): number {
  const m = /^(\d+(?:\.\d+)?)([dhm])$/.exec(value.trim());
  if (!m || Number(m[1]) <= 0) throw new InvalidArgumentError(`"${value}" is not a duration (for example 14d, 36h, 90m)`);
  return Number(m[1]) / { d: 1, h: 24, m: 1440 }[m[2] as 'd' | 'h' | 'm'];
}

export function registerPruneCommand(recording: Command): void {
  recording
    .command('prune')
    .description("apply the retention cap to a recordings folder (default: the app's, under its settings file's cap)")
    .argument('[dir]', 'folder to prune', xdgRecordingsFolder())
    .addOption(new Option('--max-size <size>', 'keep the folder at or under this size (for example 5GiB)').argParser(parseSize))
    .addOption(new Option('--max-age <duration>', 'remove recordings last written longer ago (for example 14d)').argParser(parseAge))
    .option('--dry-run', 'say what would be removed, remove nothing', false)
    .action((dir: string, flags: PruneFlags) => {
      const settings = readRetentionSettings(dir);
      if (settings.problem) process.stderr.write(`peerscope: ${settings.problem}\n`);
      const cap = {
        maxAgeDays: flags.maxAge ?? settings.retention.maxAgeDays,
        maxBytes: flags.maxSize ?? settings.retention.maxBytes,
      };
      const removed = applyRetention(dir, cap, { dryRun: flags.dryRun });
      for (const r of removed) console.log(`${flags.dryRun ? 'would remove' : 'removed'} ${r.name} (${formatBytes(r.bytes)}): ${r.reason}`);
      const count = `${removed.length} ${removed.length === 1 ? 'recording' : 'recordings'}`;
      console.log(
        `${dir}: ${count} ${flags.dryRun ? 'would be removed' : 'removed'}; cap ${cap.maxAgeDays} days, ${formatBytes(cap.maxBytes)}`,
      );
    });
}
