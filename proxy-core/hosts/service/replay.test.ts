// Replay's pages read from a real recording file (written by the writer, flushed as the core flushes):
// in time order across pages even where flushes overlap in time, ties kept by row, every event once,
// each page bounded, and answered in the live stream's shapes with nothing the recording did not keep.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordedEventsPageSchema, type RecordedCursor, type RecordedEventsPage } from '../../contract/replay.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { RecordingWriter } from '../../engine/recording/writer.js';
import { syntheticEvents } from '../../../bench/recording/synthetic.js';
import { replayCalls, requestOf } from './replay.js';

const dir = mkdtempSync(join(tmpdir(), 'replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 27, 14, 0);

/**
 * 12,000 events over 60 s, flushed every 700 events; each flush's audit events arrive late (their
 * times up to 1.5 s before the flush's port events, as a followed log lags), and bursts share a millisecond.
 */
function record(file: string): { at: number; port: boolean }[] {
  const w = RecordingWriter.create(file, { startedAt: T0, host: 'test', flushEveryMs: 3_600_000 });
  const make = syntheticEvents(3);
  const written: { at: number; port: boolean }[] = [];
  for (let i = 0; i < 12_000; i++) {
    const port = i % 3 !== 0;
    const base = T0 + Math.floor(i * 5);
    const at = port ? base - (base % 20) : Math.max(T0, base - 1_500 + (i % 7));
    if (port) w.routing(Object.assign(make.routing(at), { at }));
    else w.cluster(Object.assign(make.cluster(at), { at }));
    written.push({ at, port });
    if (i % 700 === 699) w.flush();
  }
  w.close();
  return written;
}

describe('replay pages', () => {
  const file = join(dir, 'a.recording.sqlite');
  const written = record(file);
  const reader = RecordingReader.open(file);
  afterAll(() => reader.close());
  const calls = replayCalls(() => reader);

  async function pages(from: number, to: number, limit: number): Promise<RecordedEventsPage[]> {
    const out: RecordedEventsPage[] = [];
    let after: RecordedCursor | undefined;
    do {
      const page = recordedEventsPageSchema.parse(await calls.getRecordedEvents({ from, to, limit, ...(after ? { after } : {}) }));
      out.push(page);
      after = page.next ?? undefined;
      expect(out.length).toBeLessThan(1_000);
    } while (after);
    return out;
  }

  it('answers every event of the window once, in time order, in bounded pages', async () => {
    const from = T0 + 10_000;
    const to = T0 + 40_000;
    const all = await pages(from, to, 500);
    const events = all.flatMap((p) => [...p.port.map((e) => ({ ...e, port: true })), ...p.cluster.map((e) => ({ ...e, port: false }))]);
    const expected = written.filter((e) => e.at >= from && e.at < to);
    expect(events.length).toBe(expected.length);
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    for (const p of all) expect(p.port.length + p.cluster.length).toBeLessThanOrEqual(500);
    // Page by page, oldest first: each page's events are at or after the previous page's.
    let last = -Infinity;
    for (const p of all) {
      const times = [...p.port, ...p.cluster].map((e) => e.at).sort((a, b) => a - b);
      expect(times[0] ?? Infinity).toBeGreaterThanOrEqual(last);
      last = times.at(-1) ?? last;
      expect(p.through).toBeGreaterThanOrEqual(last);
    }
    // The recorded times, counted per source, equal those written.
    const count = (list: { at: number; port: boolean }[]) => list.map((e) => `${e.port}:${e.at}`).sort();
    expect(count(events)).toEqual(count(expected));
    console.log(`replay pages: ${events.length} events of a 30 s window in ${all.length} pages of at most 500`);
  });

  it('pages through a millisecond holding more events than a page', async () => {
    const byTime = new Map<number, number>();
    for (const e of written) byTime.set(e.at, (byTime.get(e.at) ?? 0) + 1);
    const [at, tied] = [...byTime].sort((a, b) => b[1] - a[1])[0]!;
    expect(tied).toBeGreaterThan(1);
    const all = await pages(at, at + 1, 1);
    expect(all.flatMap((p) => [...p.port, ...p.cluster]).length).toBe(tied);
  });

  it('answers the recorded request in the live shapes, with no object name, bytes or query', async () => {
    const [page] = await pages(T0, T0 + 2_000, 10_000);
    const port = page!.port[0]!;
    expect(port).toMatchObject({ handling: expect.stringMatching(/^cp-/), bytesIn: 0, bytesOut: 0, status: expect.any(Number) });
    expect(port.path).not.toContain('?');
    expect(page!.cluster[0]).toMatchObject({ user: expect.stringMatching(/^system:serviceaccount:/), via: 'audit-log' });
    expect(requestOf('core/v1/pods/log', 'shop')).toEqual({
      group: '',
      version: 'v1',
      resource: 'pods',
      subresource: 'log',
      path: '/api/v1/namespaces/shop/pods/…/log',
    });
    expect(requestOf('apps/v1/deployments', '').path).toBe('/apis/apps/v1/deployments');
    expect(requestOf('/healthz', '').path).toBe('/healthz');
  });

  it('reads a recording still being written: kinds of request first written after the reader opened are named', async () => {
    const growing = join(dir, 'growing.recording.sqlite');
    const w = RecordingWriter.create(growing, { startedAt: T0, host: 'test', flushEveryMs: 3_600_000 });
    const make = syntheticEvents(5);
    w.routing(Object.assign(make.routing(T0), { at: T0, userAgent: 'first/v1' }));
    w.flush();
    const live = RecordingReader.open(growing);
    try {
      w.routing(Object.assign(make.routing(T0 + 10), { at: T0 + 10, userAgent: 'later/v1', namespace: 'team-new' }));
      w.flush();
      const page = await replayCalls(() => live).getRecordedEvents({ from: T0, to: T0 + 1_000, limit: 10 });
      expect(page.port.map((e) => e.userAgent)).toEqual(['first/v1', 'later/v1']);
      expect(page.port[1]!.namespace).toBe('team-new');
    } finally {
      live.close();
      w.close();
    }
  });

  it('refuses a window that ends before it starts, naming the field', async () => {
    await expect(calls.getRecordedEvents({ from: T0 + 10, to: T0, limit: 10 })).rejects.toThrow(/to/);
  });
});
