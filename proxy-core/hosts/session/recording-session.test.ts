// A recording opened from a file as a session, on a file the real writer wrote: the live calls answer
// its last state, changes are refused as read-only, and calls written elsewhere as functions of a
// reader plug in (both shapes: per call, and made over a reader getter as the service's are).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { overviewSchema } from '../../contract/client.js';
import { impactReportSchema } from '../../contract/impact.js';
import { routingSnapshotSchema } from '../../contract/snapshot.js';
import { RecordingWriter } from '../../engine/recording/writer.js';
import { openRecordingSession } from './recording-session.js';

const dir = mkdtempSync(join(tmpdir(), 'recording-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 10, 28, 14, 0);

let made = 0;
/** A new recording each call, in a folder of its own: the file's name is the one the answers give. */
function recording(): string {
  const file = join(mkdtempSync(join(dir, `r${++made}-`)), 'rollout.recording.sqlite');
  const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
  w.change('health', 'cp-1', 'ready', T0 + 100);
  w.change('release', 'cp-1', 'v1.36.0', T0 + 100);
  w.change('health', 'cp-1', 'unreachable', T0 + 30_000);
  w.change('policy', '', 'pin:cp-1', T0 + 10);
  w.close();
  return file;
}

describe('openRecordingSession', () => {
  it('answers from the file, refuses changes, and takes calls written as functions of a reader', async () => {
    const session = openRecordingSession(recording(), {
      label: 'recording rollout',
      calls: { getClusterGvrRates: async (reader) => ({ seconds: reader.info().endedAt - T0, cells: [] }) },
      callsOf: [(reader) => ({ getEvents: async () => ({ events: [], lastSeq: reader().info().events + 7 }) })],
    });
    try {
      const overview = await session.service.getOverview();
      expect(overview).toMatchObject({ listen: null, policy: 'pin:cp-1', discoveryMode: 'peer-aggregated', lastSeq: 0 });
      // It says which recording it is (the top bar names it in place of "live"), as the contract's schema reads it.
      expect(overviewSchema.parse(overview).recording).toEqual({ name: 'rollout.recording.sqlite', startedAt: T0, endedAt: T0 + 30_000 });
      expect(overview.servers.map((s) => [s.name, s.health, s.gitVersion])).toEqual([['cp-1', 'unreachable', 'v1.36.0']]);
      expect(await session.service.getRecordingTimeline()).toMatchObject({ ended: true, startedAt: T0, endedAt: T0 + 30_000 });
      expect(await session.service.getClusterGvrRates()).toEqual({ seconds: 30_000, cells: [] });
      expect(await session.service.getEvents()).toEqual({ events: [], lastSeq: 7 });
      await expect(session.service.setDiscoveryMode({ mode: 'nopeer' })).rejects.toMatchObject({
        code: 'PEERSCOPE_ERR_READ_ONLY',
        message: 'recording rollout is read-only: changing the discovery mode needs a live cluster. Go back to live first.',
      });
      await expect(session.service.takeSnapshot()).rejects.toMatchObject({ code: 'PEERSCOPE_ERR_OFFLINE' });
    } finally {
      session.close();
    }
  });

  it('takes a snapshot at a recorded moment and the impact report of the whole recording from the file', async () => {
    const session = openRecordingSession(recording());
    try {
      const at = T0 + 10_000;
      const snapshot = routingSnapshotSchema.parse(await session.service.takeSnapshotAt({ at }));
      // The moment, named as the recording's: cp-1 still ready then (it went out of reach at T0 + 30 s).
      expect(snapshot.takenAt).toBe(new Date(at).toISOString());
      expect(snapshot.recorded).toMatchObject({ file: 'rollout.recording.sqlite', at: new Date(at).toISOString() });
      expect(snapshot.servers.map((s) => [s.name, s.health, s.gitVersion])).toEqual([['cp-1', 'ready', 'v1.36.0']]);
      expect(snapshot.settings.policy).toBe('pin:cp-1');
      await expect(session.service.takeSnapshotAt({ at: T0 + 60_000 })).rejects.toMatchObject({
        code: 'PEERSCOPE_ERR_INPUT',
        message: expect.stringMatching(/rollout\.recording\.sqlite: .* is outside the recording/),
      });
      const impact = impactReportSchema.parse(await session.service.getImpactReport({}));
      expect(impact.findings).toEqual([]);
      expect(impact.window).toMatchObject({ since: T0, until: T0 + 30_001 });
      expect(impact.current).toEqual([{ name: 'cp-1', gitVersion: 'v1.36.0' }]);
    } finally {
      session.close();
    }
  });

  it('refuses a file that is not a recording, naming it', () => {
    expect(() => openRecordingSession(join(dir, 'missing.recording.sqlite'))).toThrow(/missing\.recording\.sqlite: cannot read/);
  });
});
