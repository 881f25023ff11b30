// The recording written and read back in one process: the rollups count what the events hold, a
// window finds its events, the timeline answers "what was it at that moment", a discovery document is
// stored once per content, and a file of a newer format is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { RoutingEvent } from '../../contract/events.js';
import { RecordingReader } from './reader.js';
import { buildRecordingReport } from './report.js';
import { FORMAT_VERSION } from './schema.js';
import { RecordingWriter } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 27, 14, 0);

function routing(at: number, over: Partial<RoutingEvent> = {}): RoutingEvent {
  return {
    seq: 0,
    at,
    userAgent: 'kubectl/v1.36.0',
    method: 'GET',
    verb: 'list',
    path: '/api/v1/namespaces/shop/pods',
    group: '',
    version: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'shop',
    handling: 'cp-1',
    answeredBy: 'cp-1',
    outcome: 'local',
    status: 200,
    latencyMs: 3.4,
    bytesIn: 0,
    bytesOut: 10,
    ...over,
  };
}

describe('recording', () => {
  it('reads back events, per-minute counts, the timeline and discovery at a moment', () => {
    const file = join(dir, 'a.recording.sqlite');
    const w = RecordingWriter.create(file, { startedAt: T0, host: 'test' });
    const doc = (gvrs: string[]) => () => deflateSync(JSON.stringify({ gvrs, excludedGroupVersions: [], apis: {}, api: {} }));
    w.change('release', 'cp-1', 'v1.36.0', T0, undefined);
    w.change('discovery', 'cp-1', 'sha256:old', T0, doc(['core/v1/pods']));
    // Minute 0: 100 local; minute 2: 5 rerouted to cp-2 and 2 cluster false 404s.
    for (let i = 0; i < 100; i++) w.routing(routing(T0 + i * 100));
    w.change('release', 'cp-1', 'v1.37.0', T0 + 90_000);
    w.change('discovery', 'cp-1', 'sha256:new', T0 + 90_000, doc(['core/v1/pods', 'resource.k8s.io/v1/deviceclasses']));
    // The same content again: stored once.
    w.change('discovery', 'cp-1', 'sha256:old', T0 + 100_000, doc(['core/v1/pods']));
    for (let i = 0; i < 5; i++) w.routing(routing(T0 + 125_000 + i, { outcome: 'rerouted', answeredBy: 'cp-2', namespace: '' }));
    for (let i = 0; i < 2; i++)
      w.cluster({
        seq: 0,
        at: T0 + 130_000,
        server: 'cp-2',
        userAgent: 'legacy-operator/v0.8',
        user: 'system:serviceaccount:ops:legacy',
        verb: 'get',
        path: '/apis/resource.k8s.io/v1/deviceclasses',
        group: 'resource.k8s.io',
        version: 'v1',
        resource: 'deviceclasses',
        subresource: '',
        namespace: '',
        outcome: 'false-404',
        code: 404,
        latencyMs: 1,
        via: 'audit-webhook',
      });
    w.close();

    const r = RecordingReader.open(file);
    try {
      expect(r.info()).toMatchObject({ host: 'test', startedAt: T0, endedAt: T0 + 130_000, events: 107 });
      const minute0 = r.counts({ from: T0, to: T0 + 60_000 });
      expect(minute0).toEqual([
        expect.objectContaining({ source: 'port', outcome: 'local', gvr: 'core/v1/pods', count: 100, latency: 300 }),
      ]);
      const perMinute = r.counts({}, true).map((c) => [(c.at - T0) / 60_000, c.source, c.outcome, c.count]);
      expect(perMinute).toEqual([
        [0, 'port', 'local', 100],
        [2, 'port', 'rerouted', 5],
        [2, 'audit-webhook', 'false-404', 2],
      ]);
      // A window of two seconds finds exactly its events.
      const events = r.events({ from: T0 + 1_000, to: T0 + 3_000 });
      expect(events.map((e) => e.at)).toEqual(Array.from({ length: 20 }, (_, i) => T0 + 1_000 + i * 100));
      expect(events[0]).toMatchObject({ namespace: 'shop', latencyMs: 3, client: 'kubectl/v1.36.0', server: 'cp-1' });
      expect(r.valueAt('release', 'cp-1', T0 + 89_999)?.value).toBe('v1.36.0');
      expect(r.valueAt('release', 'cp-1', T0 + 90_000)?.value).toBe('v1.37.0');
      expect(r.discoveryAt('cp-1', T0 + 60_000)?.gvrs).toEqual(['core/v1/pods']);
      expect(r.discoveryAt('cp-1', T0 + 95_000)?.gvrs).toEqual(['core/v1/pods', 'resource.k8s.io/v1/deviceclasses']);
      expect(r.discoveryAt('cp-1', T0 + 110_000)).toMatchObject({ hash: 'sha256:old', since: T0 + 100_000 });
      const report = buildRecordingReport(r);
      expect(report.false404s).toEqual([
        {
          minute: T0 + 120_000,
          client: 'legacy-operator/v0.8',
          user: 'system:serviceaccount:ops:legacy',
          server: 'cp-2',
          gvr: 'resource.k8s.io/v1/deviceclasses',
          count: 2,
        },
      ]);
      expect(report.rerouted).toEqual([{ from: 'cp-1', to: 'cp-2', gvr: 'core/v1/pods', count: 5 }]);
    } finally {
      r.close();
    }
    const db = new DatabaseSync(file, { readOnly: true });
    expect(db.prepare('SELECT count(*) n FROM documents').get()).toEqual({ n: 2 });
    db.close();
  });

  it('refuses a recording of a newer format, and never writes over an existing file', () => {
    const file = join(dir, 'newer.recording.sqlite');
    RecordingWriter.create(file).close();
    const db = new DatabaseSync(file);
    db.exec(`PRAGMA user_version = ${FORMAT_VERSION + 1}`);
    db.close();
    expect(() => RecordingReader.open(file)).toThrow(`${file}: recording format ${FORMAT_VERSION + 1} is newer than this Peerscope reads`);
    const existing = join(dir, 'existing.txt');
    writeFileSync(existing, 'keep me');
    expect(() => RecordingWriter.create(existing)).toThrow(`${existing}: already exists`);
  });
});
