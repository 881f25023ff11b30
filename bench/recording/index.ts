// The recording's figures (issue 42): what recording 5,000 events a second costs, the sustained ingest
// rate, the bytes per event on disk (rollups included), and how fast a 5-minute window, the whole
// report and the first screen of a large recording answer. The large recording is synthetic
// (synthetic.ts) and written as fast as the writer takes it; its size is `--recording-events N`
// (default 3 million, ten minutes at 5,000 a second; the 2-hour recording is 36,000,000).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterEvent } from '../../proxy-core/contract/cluster.js';
import type { RoutingEvent } from '../../proxy-core/contract/events.js';
import { RecordingReader } from '../../proxy-core/engine/recording/reader.js';
import { buildRecordingReport } from '../../proxy-core/engine/recording/report.js';
import { reportHtml } from '../../proxy-core/engine/recording/report-html.js';
import { false404sForWindow, impactForWindow } from '../../proxy-core/hosts/service/recording-window.js';
import { RecordingWriter } from '../../proxy-core/engine/recording/writer.js';
import type { Figure } from '../figure.js';
import { exportRun } from './export.js';
import { ingest } from './ingest.js';
import { serveRecordingCost } from './serve-cost.js';
import { syntheticEvents } from './synthetic.js';

const DEFAULT_EVENTS = 3_000_000;

export function recordingEventsFromArgs(argv: readonly string[], quick: boolean): number {
  const i = argv.indexOf('--recording-events');
  if (i >= 0) {
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 10_000) throw new Error('--recording-events needs a whole number of at least 10000');
    return n;
  }
  return quick ? 300_000 : DEFAULT_EVENTS;
}

export async function recordingFigures(options: { quick: boolean; events: number }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-bench-recording-'));
  try {
    const cost = await pacedCost(join(dir, 'paced.recording.sqlite'), options.quick ? 3 : 10);
    const serve = await serveRecordingCost(options.quick);
    const large = ingest(join(dir, 'large.recording.sqlite'), options.events);
    const minutes = Math.round((large.to - large.from) / 60_000);
    const size = `${(options.events / 1e6).toFixed(1)}M events = ${minutes} min at 5,000/s`;
    // A screen asks an open recording; opening it (reading its names and series) is the first screen's cost.
    let reader: RecordingReader | undefined;
    const open = timed(1, () => {
      reader = RecordingReader.open(large.file);
      reader.info();
    });
    const middle = large.from + Math.floor((large.to - large.from) / 2);
    const window = { from: middle - 150_000, to: middle + 150_000 };
    const query = timed(5, () => {
      buildRecordingReport(reader!, window);
      reader!.events(window, 1_000);
    });
    // A replay's page: 5,000 events in time order, read after a cursor in the middle of a 15-minute window.
    const replayWindow = { from: middle - 450_000, to: middle + 450_000 };
    const cursor = reader!.eventsPage(replayWindow, 5_000).next ?? undefined;
    const page = timed(5, () => reader!.eventsPage(replayWindow, 5_000, cursor));
    // The window's Upgrade impact (the engine's judge over the rollups' client counts) and its false 404s by client.
    const screens = timed(5, () => {
      impactForWindow(reader!, window, undefined);
      false404sForWindow(reader!, window);
    });
    const whole = timed(1, () => buildRecordingReport(reader!));
    // The same as the one HTML file an operator attaches to a ticket (report, charts, tables), its
    // clients judged against a catalog release (synthetic traffic records no release to default to).
    const html = timed(1, () => reportHtml(buildRecordingReport(reader!, {}, { toRelease: 'v1.37' })));
    reader!.close();
    const exported = await exportRun(large.file, join(dir, 'export'));
    return [
      // Two cores shared with other work: the wall times below stretch with it.
      { name: 'load average (1 min) as the recording figures were taken', value: loadavg()[0] ?? 0, unit: '' },
      {
        name: 'recording 5,000 events/s: CPU of serve with --record less without',
        value: serve.recording - serve.without,
        unit: 'core',
        target: 0.1,
      },
      {
        name: `  (serve following 5,000 audit requests/s: ${serve.without.toFixed(3)} core without, ${serve.recording.toFixed(3)} with)`,
        value: serve.recording,
        unit: 'core',
      },
      { name: 'recording 5,000 events/s: the writer alone, in-process', value: cost, unit: 'core' },
      { name: `recording sustained ingest (${size})`, value: large.events / large.seconds, unit: 'ev/s', target: 50_000, atLeast: true },
      { name: 'recording bytes per event on disk, rollups included', value: large.bytes / large.events, unit: 'B', target: 40 },
      { name: `recording opens: names and series read (${size})`, value: open, unit: 'ms', target: 2_000 },
      { name: `recording 5-minute window: report + 1,000 events (${size})`, value: query, unit: 'ms', target: 200 },
      { name: `recording replay page: 5,000 events in time order (${size})`, value: page, unit: 'ms' },
      { name: `recording 5-minute window: Upgrade impact + false 404s by client (${size})`, value: screens, unit: 'ms', target: 200 },
      { name: `recording whole report (${size})`, value: whole, unit: 'ms', target: 10_000 },
      { name: `recording whole report as HTML (${size})`, value: html, unit: 'ms', target: 10_000 },
      {
        name: `recording export to Parquet, CLI (${size})`,
        value: options.events / exported.seconds,
        unit: 'ev/s',
        target: 50_000,
        atLeast: true,
      },
      { name: `recording export to Parquet: peak RSS of the CLI (${size})`, value: exported.peakRssMiB, unit: 'MiB', target: 200 },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median wall time of `runs` runs of `f`, in ms. */
function timed(runs: number, f: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    f();
    times.push(performance.now() - began);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/**
 * CPU cores the writer takes when fed 5,000 events a second (as the core feeds it: each event as it
 * happens, its own 200 ms flushes): this process's CPU over `seconds` of the paced loop with the
 * writer, less the same loop without it.
 */
async function pacedCost(file: string, seconds: number): Promise<number> {
  const make = syntheticEvents(7);
  const routing = Array.from({ length: 4_096 }, () => make.routing(0));
  const cluster = Array.from({ length: 4_096 }, () => make.cluster(0));
  const run = async (writer: RecordingWriter | undefined): Promise<number> => {
    const cpu = process.cpuUsage();
    const began = performance.now();
    let sent = 0;
    let sink = 0;
    while (performance.now() - began < seconds * 1000) {
      await new Promise((r) => setTimeout(r, 10));
      const due = Math.floor(((performance.now() - began) / 1000) * 5_000);
      for (; sent < due; sent++) {
        const e = sent % 2 === 0 ? routing[(sent >> 1) % 4_096]! : cluster[(sent >> 1) % 4_096]!;
        e.at = Date.now();
        if (!writer) sink += e.at;
        else if (sent % 2 === 0) writer.routing(e as RoutingEvent);
        else writer.cluster(e as ClusterEvent);
      }
    }
    writer?.close();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1e6 / ((performance.now() - began) / 1000) + sink * 0;
  };
  const without = await run(undefined);
  const withWriter = await run(RecordingWriter.create(file));
  return Math.max(0, withWriter - without);
}
