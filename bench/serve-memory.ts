// Issue 42's memory lines, printed together at the end of `npm run bench`: RSS of `peerscope serve`
// idle (bench/rss.ts), after the throughput bench's load (bench/throughput: read as idle is, settled
// after its last request) and after `--serve-events N` audit events received on its webhook and
// recorded (bench/recording/serve-rss.ts; 36 million by default, a 2-hour rollout at 5,000 a second).
// `--only memory` runs these alone, the throughput bench with Peerscope and kubectl proxy only (its
// CPU per request against kubectl proxy's is the other half of the target).
import type { Figure } from './figure.js';
import { serveRecordedRss } from './recording/serve-rss.js';
import type { Report } from './throughput/report-types.js';

export const IDLE_TARGET_MIB = 90;
export const AFTER_LOAD_TARGET_MIB = 150;
export const RECORDED_TARGET_MIB = 200;

export async function serveMemoryFigures(idleMiB: number, throughput: Report, events: number): Promise<Figure[]> {
  const afterLoad = throughput.targets.find((t) => t.name === 'peerscope')?.afterLoadRssMiB;
  const recorded = await serveRecordedRss(events);
  const count = events.toLocaleString('en-US');
  const figures: Figure[] = [{ name: 'serve RSS idle (2 servers)', value: idleMiB, unit: 'MiB', target: IDLE_TARGET_MIB }];
  if (afterLoad !== undefined)
    figures.push({ name: "serve RSS after the throughput bench's load", value: afterLoad, unit: 'MiB', target: AFTER_LOAD_TARGET_MIB });
  figures.push(
    { name: `serve --record RSS after ${count} audit events`, value: recorded.rssMiB, unit: 'MiB', target: RECORDED_TARGET_MIB },
    {
      name: `  (${count} events posted in ${recorded.seconds.toFixed(0)} s, ${Math.round(events / recorded.seconds).toLocaleString('en-US')}/s; peak RSS)`,
      value: recorded.peakMiB,
      unit: 'MiB',
    },
  );
  return figures;
}

/** The CPU-per-request checks against kubectl proxy that go with the memory targets. */
export function cpuAgainstKubectl(throughput: Report): Figure[] {
  return throughput.checks
    .filter((c) => c.name.endsWith('Peerscope / kubectl proxy, proxy CPU per request') && c.value !== undefined)
    .map((c) => ({ name: c.name, value: c.value!, unit: '×', target: 1 }));
}
