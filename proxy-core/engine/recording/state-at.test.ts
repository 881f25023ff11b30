// The state at a recorded moment, read back from a recording written in this process: each server's
// health, release and discovery then, the route table then with its skew, the health changes up to
// then; and the timeline a time control draws.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordingReader } from './reader.js';
import { stateAt, timelineOf } from './state-at.js';
import { RecordingWriter } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'state-at-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 27, 14, 0);
const OLD = ['/v1/pods', 'apps/v1/deployments'];
const NEW = [...OLD, 'resource.k8s.io/v1/deviceclasses'];
const json = (value: unknown) => () => deflateSync(JSON.stringify(value));
const discovery = (gvrs: string[]) => json({ gvrs, excludedGroupVersions: [], apis: {}, api: {} });

describe('stateAt', () => {
  it('answers the servers and the route table as recorded at each moment', () => {
    const file = join(dir, 'rollout.recording.sqlite');
    const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
    for (const name of ['cp-1', 'cp-2']) {
      w.change('health', name, 'ready', T0 + 100);
      w.change('release', name, 'v1.36.0', T0 + 100);
      w.change('discovery', name, 'sha256:old', T0 + 200, discovery(OLD));
    }
    w.change('route-table', '', 'sha256:rt-old', T0 + 200, json(OLD.map((g) => [g, ['cp-1', 'cp-2']])));
    w.change('policy', '', 'round-robin', T0 + 10);
    w.change('discovery-mode', '', 'peer-aggregated', T0 + 10);
    w.change('discovery-mode', '', 'nopeer', T0 + 75_000);
    // cp-1 goes down at 60 s and comes back at 70 s upgraded, serving one more GVR.
    w.change('health', 'cp-1', 'unreachable', T0 + 60_000);
    w.change('health', 'cp-1', 'ready', T0 + 70_000);
    w.change('release', 'cp-1', 'v1.37.0', T0 + 70_000);
    w.change('discovery', 'cp-1', 'sha256:new', T0 + 70_500, discovery(NEW));
    w.change('route-table', '', 'sha256:rt-new', T0 + 70_500, json([...OLD.map((g) => [g, ['cp-1', 'cp-2']]), [NEW[2], ['cp-1']]]));
    w.close();

    const r = RecordingReader.open(file);
    try {
      const known = (name: string) => ({ url: `https://${name}:6443`, source: 'flag' as const });
      const before = stateAt(r, T0 + 30_000, known);
      expect(before.servers.map((s) => [s.name, s.health, s.gitVersion, s.discovery.gvrCount, s.url])).toEqual([
        ['cp-1', 'ready', 'v1.36.0', 2, 'https://cp-1:6443'],
        ['cp-2', 'ready', 'v1.36.0', 2, 'https://cp-2:6443'],
      ]);
      expect(before.routeTable.skewedCount).toBe(0);
      expect(before.routeTable.rows).toContainEqual({ group: '', version: 'v1', resource: 'pods', servers: ['cp-1', 'cp-2'] });
      expect(before.routeTable.columns.map((c) => c.gitVersion)).toEqual(['v1.36.0', 'v1.36.0']);
      expect(before.settings).toEqual({ policy: 'round-robin', discoveryMode: 'peer-aggregated' });

      const down = stateAt(r, T0 + 65_000, known);
      expect(down.servers[0]).toMatchObject({ health: 'unreachable', gitVersion: 'v1.36.0' });
      expect(down.history[0]!.samples.map((s) => s.health)).toEqual(['ready', 'unreachable']);

      const after = stateAt(r, T0 + 80_000, () => undefined);
      expect(after.servers.map((s) => s.gitVersion)).toEqual(['v1.37.0', 'v1.36.0']);
      expect(after.routeTable.skewedCount).toBe(1);
      expect(after.settings.discoveryMode).toBe('nopeer');
      expect(after.routeTable.rows).toContainEqual({
        group: 'resource.k8s.io',
        version: 'v1',
        resource: 'deviceclasses',
        servers: ['cp-1'],
      });
      // Not known to the live session: no address to show.
      expect(after.servers[0]).toMatchObject({ url: '', source: 'flag' });

      // Before anything was recorded: no servers, an empty table.
      expect(stateAt(r, T0 + 50, known)).toMatchObject({ servers: [], routeTable: { rows: [], skewedCount: 0 } });

      const timeline = timelineOf(r);
      expect(timeline.startedAt).toBe(T0);
      expect(timeline.endedAt).toBe(T0 + 75_000);
      expect(timeline.servers.map((s) => s.name)).toEqual(['cp-1', 'cp-2']);
      expect(timeline.servers[0]!.changes.filter((c) => c.kind === 'release').map((c) => c.value)).toEqual(['v1.36.0', 'v1.37.0']);
    } finally {
      r.close();
    }
  });
});
