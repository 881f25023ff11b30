// `npm run bench -- --soak-minutes N [--soak-rps R]`: the long rollout soak alone (bench/run.ts hands
// over when the flag is there). Prints one line per rollout, then the port's RSS after warm-up
// against the end with an ok / MISS line (target ≤ 10 % growth), and writes bench/results/soak-long.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { longSoak, RSS_GROWTH_TARGET_PERCENT } from './long-soak.js';

function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Undefined when the long soak was not asked for; else its exit code. */
export async function longSoakFromArgs(argv: readonly string[]): Promise<number | undefined> {
  const minutesText = flag(argv, '--soak-minutes');
  if (minutesText === undefined) return undefined;
  const minutes = Number(minutesText);
  if (!Number.isFinite(minutes) || minutes <= 0) {
    console.error(`--soak-minutes: "${minutesText}" is not a positive number of minutes`);
    return 2;
  }
  const rps = Number(flag(argv, '--soak-rps') ?? 200);
  console.log(`peerscope bench, long soak: node ${process.version}, ${new Date().toISOString()}`);
  const result = await longSoak({ minutes, rps, log: (line) => console.log(line) });
  const t = result.totals;
  const r = result.rss;
  const rssOk = r.growthPercent <= RSS_GROWTH_TARGET_PERCENT;
  const clean =
    t.falseNotFound === 0 &&
    t.unjustified503 === 0 &&
    t.lostWrites === 0 &&
    t.duplicateWrites === 0 &&
    t.watchesErrored === 0 &&
    t.watchesLost === 0 &&
    !result.crashed;
  console.log(
    `\n${result.cycles.length} rollouts, ${t.requests.toLocaleString('en-US')} requests: false 404 ${t.falseNotFound} (strict ${t.falseNotFoundStrict}), unjustified 503 ${t.unjustified503}, lost writes ${t.lostWrites}, duplicated ${t.duplicateWrites}, watches ${t.watchesOpened} opened / ${t.watchesErrored} errored / ${t.watchesResumed} resumed / ${t.watchesLost} changes lost${result.crashed ? `; the port died: ${result.crashed}` : ''}`,
  );
  console.log(
    `port RSS: ${r.afterWarmupMiB.toFixed(1)} MiB after warm-up (median of ${fmt(r.warmupSeconds)}–${fmt(r.warmupSeconds + r.windowSeconds)}), ${r.endMiB.toFixed(1)} MiB at the end (median of the last ${fmt(r.windowSeconds)}), peak ${r.peakMiB.toFixed(1)} MiB, ${r.samples} samples`,
  );
  console.log(
    `${rssOk ? 'ok  ' : 'MISS'}  ${'RSS growth of peerscope serve after warm-up'.padEnd(56)} ${r.growthPercent.toFixed(1).padStart(9)} %   (target ≤ ${RSS_GROWTH_TARGET_PERCENT} %)`,
  );
  console.log(
    `${clean ? 'ok  ' : 'MISS'}  ${'rollouts without a false 404, lost write or lost watch event'.padEnd(56)} ${String(result.cycles.length).padStart(9)}`,
  );
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/soak-long.json',
    JSON.stringify({ at: new Date().toISOString(), node: process.version, ...result }, null, 2) + '\n',
  );
  return rssOk && clean ? 0 : 1;
}

function fmt(seconds: number): string {
  return seconds >= 60 ? `${(seconds / 60).toFixed(1)} min` : `${Math.round(seconds)} s`;
}
