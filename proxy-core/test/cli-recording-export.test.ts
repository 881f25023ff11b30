// `peerscope recording export FILE --out DIR [--from --to]` read back by an independent reader: a
// recording written by the writer (the port's and the audit logs' events over four minutes — resource,
// subresource and non-resource requests, with and without a namespace or an answering server — and its
// timeline) is exported by the built CLI (and in-process in row groups of 1,000), and parquet-check (Go, on
// github.com/parquet-go/parquet-go; scripts/parquet-check) reads each file: the row counts and every
// value equal what the recording's own reader gives, the times are UTC millisecond timestamps, and a
// window exports only its events. An export is never written over.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/fixtures.js';
import type { RoutingEvent } from '../contract/events.js';
import { EXPORT_FILES, exportRecording, seriesColumns } from '../engine/recording/export.js';
import { RecordingReader } from '../engine/recording/reader.js';
import { RecordingWriter } from '../engine/recording/writer.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-recording-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 27, 14, 0);
const EVENTS = 9_000;

interface Checked {
  rows: number;
  rowGroups: number;
  columns: { name: string; type: string; optional: boolean }[];
  metadata: Record<string, string>;
  data: unknown[][];
}

let checker: string | undefined;
let unavailable: string | undefined;
beforeAll(() => {
  try {
    checker = execFileSync(process.execPath, ['scripts/parquet-check/build.mjs'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch (err) {
    unavailable = (err as Error).message.split('\n')[0];
  }
}, 300_000);

function parquetCheck(file: string): Checked {
  return JSON.parse(execFileSync(checker!, [file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })) as Checked;
}

function peerscope(...args: string[]) {
  return spawnSync(process.execPath, ['bin/peerscope', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
}

function routing(at: number, i: number): RoutingEvent {
  const kind = i % 4;
  return {
    seq: i,
    at,
    userAgent: `client-${i % 7}/v1.${i % 3}`,
    method: 'GET',
    verb: kind === 3 ? 'get' : 'list',
    path: kind === 3 ? '/healthz' : '/api/v1/pods',
    group: kind === 1 ? 'apps' : '',
    version: kind === 3 ? '' : 'v1',
    resource: kind === 3 ? '' : kind === 1 ? 'deployments' : 'pods',
    subresource: kind === 2 ? 'log' : '',
    namespace: kind === 0 ? `team-${i % 5}` : '',
    handling: `cp-${1 + (i % 3)}`,
    answeredBy: i % 11 === 0 ? null : `cp-${1 + (i % 2)}`,
    outcome: i % 11 === 0 ? 'notfound' : 'local',
    status: i % 11 === 0 ? 404 : 200,
    latencyMs: (i % 50) + 0.4,
    bytesIn: 0,
    bytesOut: 10,
  };
}

function makeRecording(file: string): void {
  const w = RecordingWriter.create(file, { startedAt: T0, host: 'test', flushEveryMs: 3_600_000 });
  for (let i = 0; i < EVENTS; i++) {
    // Four minutes of events, flushed in blocks as the writer's timer would.
    const at = T0 + Math.floor((i * 240_000) / EVENTS);
    if (i % 3 === 2)
      w.cluster({
        seq: i,
        at,
        server: 'cp-2',
        userAgent: 'kubectl/v1.36.0',
        user: 'admin',
        verb: 'get',
        group: 'certificates.k8s.io',
        version: 'v1',
        resource: 'podcertificaterequests',
        subresource: '',
        namespace: 'shop',
        path: '/apis/certificates.k8s.io/v1/podcertificaterequests',
        outcome: 'false-404',
        code: 404,
        latencyMs: 2,
        via: 'audit-webhook',
      } as Parameters<RecordingWriter['cluster']>[0]);
    else w.routing(routing(at, i));
    if (i % 1_000 === 999) w.flush();
  }
  w.change('release', 'cp-1', 'v1.36.0', T0 + 10);
  w.change('step', 'cp-1', 'drain (v1.36.0 → v1.37.0)', T0 + 60_000);
  w.change('registration', 'cp-2', 'storagemigration.k8s.io/v1', T0 + 120_000);
  w.close();
}

/** The recording's own reading of its events, as the export's rows. */
function expectedEvents(reader: RecordingReader, window = {}): unknown[][] {
  return reader.events(window, 1_000_000).map((e) => [e.at, ...seriesColumns(e), e.namespace === '' ? null : e.namespace, e.latencyMs]);
}

describe('peerscope recording export', () => {
  it('writes events, minutes and changes that an independent reader reads back equal to the recording', (ctx) => {
    if (!checker) {
      console.warn(`skipped: parquet-check could not be built (${unavailable}); it needs Go and the Go module proxy`);
      ctx.skip();
    }
    const file = join(dir, 'rollout.recording.sqlite');
    makeRecording(file);
    const out = join(dir, 'export');
    const run = peerscope('recording', 'export', file, '--out', out);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^wrote ${out}: events.parquet ${EVENTS} events, minutes.parquet \\d+ rows, changes.parquet 3 changes\\n$`),
    );

    const reader = RecordingReader.open(file);
    try {
      const events = parquetCheck(join(out, EXPORT_FILES.events));
      expect(events.rows).toBe(EVENTS);
      expect(events.columns.map((c) => c.name)).toEqual([
        'time',
        'source',
        'server',
        'answered_by',
        'client',
        'user',
        'group',
        'version',
        'resource',
        'subresource',
        'path',
        'verb',
        'outcome',
        'code',
        'namespace',
        'latency_ms',
      ]);
      expect(events.columns[0]!.type).toBe('TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)');
      expect(events.metadata['peerscope.recording']).toBe('rollout.recording.sqlite');
      expect(events.data).toEqual(expectedEvents(reader));
      // Spot checks of what the resolution gives: a subresource, a non-resource path, a webhook event.
      expect(events.data).toContainEqual(expect.arrayContaining(['', 'v1', 'pods', 'log', null]));
      expect(events.data.some((r) => r[10] === '/healthz' && r[6] === null)).toBe(true);
      expect(events.data.some((r) => r[1] === 'audit-webhook' && r[5] === 'admin' && r[12] === 'false-404')).toBe(true);

      const minutes = parquetCheck(join(out, EXPORT_FILES.minutes));
      const rollups = reader.counts({}, true).map((c) => [c.at, ...seriesColumns(c), c.count, c.latency]);
      expect(minutes.rows).toBe(rollups.length);
      const key = (r: unknown[]) => JSON.stringify(r);
      expect(minutes.data.map(key).sort()).toEqual(rollups.map(key).sort());
      expect(minutes.data.reduce((n, r) => n + (r.at(-2) as number), 0)).toBe(EVENTS);

      const changes = parquetCheck(join(out, EXPORT_FILES.changes));
      expect(changes.data).toEqual(reader.changes().map((c) => [c.at, c.kind, c.subject, c.value]));

      // A window: only its events, and the minutes it falls in.
      const window = { from: T0 + 60_000, to: T0 + 120_000 };
      const part = join(dir, 'window');
      const windowed = peerscope(
        'recording',
        'export',
        file,
        '--out',
        part,
        '--from',
        new Date(window.from).toISOString(),
        '--to',
        String(window.to),
      );
      expect(windowed.status, windowed.stderr).toBe(0);
      const inWindow = parquetCheck(join(part, EXPORT_FILES.events));
      expect(inWindow.data).toEqual(expectedEvents(reader, window));
      expect(inWindow.rows).toBeGreaterThan(EVENTS / 5);
      expect(inWindow.metadata['peerscope.from']).toBe(new Date(window.from).toISOString());
      expect(new Set(parquetCheck(join(part, EXPORT_FILES.minutes)).data.map((r) => r[0]))).toEqual(new Set([T0 + 60_000]));
      expect(parquetCheck(join(part, EXPORT_FILES.changes)).data).toEqual([[T0 + 60_000, 'step', 'cp-1', 'drain (v1.36.0 → v1.37.0)']]);
    } finally {
      reader.close();
    }

    // In row groups of 1,000 rows: the same rows, across groups.
    const grouped = join(dir, 'grouped');
    const opened = RecordingReader.open(file);
    try {
      exportRecording(opened, grouped, { rowGroupRows: 1_000 });
      const events = parquetCheck(join(grouped, EXPORT_FILES.events));
      expect(events.rowGroups).toBe(Math.ceil(EVENTS / 1_000));
      expect(events.data).toEqual(expectedEvents(opened));
    } finally {
      opened.close();
    }

    const again = peerscope('recording', 'export', file, '--out', out);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`${join(out, EXPORT_FILES.events)}: already exists: an export is written to new files`);
  }, 120_000);
});
