// What recording costs `peerscope serve` end to end: serve following an audit log that grows by 5,000
// requests a second (each one cluster event, so 5,000 recorded events a second), its CPU with
// `--record` less its CPU without, each run checked to have counted every request.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingReader } from '../../proxy-core/engine/recording/reader.js';
import { loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startSimCluster } from '../../proxy-core/sim/index.js';
import { linesOf, requestKinds, serveAtRate } from '../audit.js';

export interface ServeCost {
  readonly without: number;
  readonly recording: number;
}

export async function serveRecordingCost(quick: boolean): Promise<ServeCost> {
  const dir = mkdtempSync(join(tmpdir(), 'peerscope-bench-record-'));
  const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], http: true });
  const serverArgs = sim.servers.flatMap((s) => ['--server', `${s.name}=${s.info().url}`]);
  const server = sim.servers[0]!.name;
  const kinds = requestKinds();
  try {
    let next = 0;
    const run = async (extra: string[], log: string) => {
      writeFileSync(log, '');
      return serveAtRate(
        [...serverArgs, '--audit-log', `${server}=${log}`, ...extra],
        quick,
        async (batch) => appendFileSync(log, batch.map(() => linesOf(next++, kinds)).join('')),
        () => true,
        500,
      );
    };
    const without = await run([], join(dir, 'plain.log'));
    const file = join(dir, 'serve.recording.sqlite');
    const recording = await run(['--record', file], join(dir, 'recorded.log'));
    // Every request counted live is in the file too (serve has closed it).
    const reader = RecordingReader.open(file);
    const events = reader.info().events;
    reader.close();
    if (events !== recording.sent) throw new Error(`serve --record wrote ${events} events of ${recording.sent} fed`);
    // CPU per second of input: what taking in 5,000 events a second needs, however long the busy machine made it take.
    return { without: without.cpuSeconds / without.seconds, recording: recording.cpuSeconds / recording.seconds };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
