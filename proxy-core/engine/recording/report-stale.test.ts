// A server's discovery going stale reaches the rollout report: the feed records the server set's
// discovery state (a failed read keeps the last document, so no discovery change is recorded), and the
// report shows the span as a discovery-stale incident. Real parts: a simulated apiserver stopped
// mid-recording, the real ServerSet, feed, writer and reader on a file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerSet } from '../cluster/server-set.js';
import { loadRelease } from '../releases/index.js';
import { buildRouteTable } from '../routing/route-table.js';
import { startSimCluster } from '../../sim/index.js';
import { feedRecording } from './feed.js';
import { RecordingReader } from './reader.js';
import { buildRecordingReport } from './report.js';
import { RecordingWriter } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'report-stale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a stale discovery in the rollout report', () => {
  it('records the server’s discovery state and reports the stale span as an incident', async () => {
    const sim = await startSimCluster({ releases: [loadRelease('v1.37-dev')], http: true });
    const servers = new ServerSet([{ name: 'sim-1', url: sim.servers[0]!.info().url }], {
      probeIntervalMs: 60_000,
      discoveryIntervalMs: 60_000,
    });
    const file = join(dir, 'stale.recording.sqlite');
    const writer = RecordingWriter.create(file, { host: 'test' });
    let feed: ReturnType<typeof feedRecording> | undefined;
    try {
      await servers.start();
      const routeTable = () => buildRouteTable(servers.names().map((name) => ({ name, gvrs: servers.discovery(name)?.gvrs })));
      feed = feedRecording(writer, { telemetry: { subscribe: () => () => undefined }, servers, routeTable });
      await sim.servers[0]!.stop();
      await servers.refreshDiscovery('sim-1');
      expect(servers.status('sim-1')?.discovery.state).toBe('stale');
    } finally {
      feed?.close();
      await servers.close();
      await sim.close();
    }
    const reader = RecordingReader.open(file);
    try {
      const report = buildRecordingReport(reader);
      const stale = report.incidents.filter((i) => i.kind === 'discovery-stale');
      expect(stale).toEqual([{ server: 'sim-1', kind: 'discovery-stale', from: expect.any(Number), to: null }]);
      expect(report.servers[0]!.changes.filter((c) => c.kind === 'discovery-state').map((c) => c.value)).toEqual(['ok', 'stale']);
    } finally {
      reader.close();
    }
  });
});
