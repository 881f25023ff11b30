// @vitest-environment jsdom
// The replay hook with fake timers: events reach the screen's feeds in recorded order, paced by the
// recorded times scaled by the speed, in bounded pages fetched ahead, delivered per frame (the feeds
// tell the screen at most every NOTIFY_MS), and the clock waits for a page rather than run past it.
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GetRecordedEventsArgs, RecordedEventsPage } from '../../../proxy-core/contract/index.js';
import { clusterEvent, routingEvent } from '../../test/fake-client.js';
import { useReplay } from './use-replay.js';

const FROM = Date.UTC(2026, 10, 27, 14, 30);
const TO = FROM + 20_000;

/** A recording of 20 s: a port event every 100 ms, a cluster false 404 every 250 ms, answered in pages by time. */
function recording(delayMs = 0) {
  const port = Array.from({ length: 200 }, (_, i) => routingEvent(1_000 + i, { at: FROM + i * 100 }));
  const cluster = Array.from({ length: 80 }, (_, i) =>
    clusterEvent(5_000 + i, { at: FROM + i * 250 + 7, outcome: 'false-404', code: 404 }),
  );
  const all = [...port.map((e) => ({ port: true, e })), ...cluster.map((e) => ({ port: false, e }))].sort((a, b) => a.e.at - b.e.at);
  const asked: GetRecordedEventsArgs[] = [];
  const getRecordedEvents = async (args: GetRecordedEventsArgs): Promise<RecordedEventsPage> => {
    asked.push(args);
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    const start = args.after ? all.findIndex((x) => x.e.seq === args.after!.row) + 1 : 0;
    const page = all.slice(start, start + args.limit);
    const last = page.at(-1);
    const next = start + args.limit < all.length && last ? { at: last.e.at, row: last.e.seq } : null;
    return {
      port: page.flatMap((x) => (x.port ? [x.e as ReturnType<typeof routingEvent>] : [])),
      cluster: page.flatMap((x) => (x.port ? [] : [x.e as ReturnType<typeof clusterEvent>])),
      through: next?.at ?? args.to,
      next,
    };
  };
  return { port, cluster, asked, client: { getRecordedEvents } };
}

const frame = (callback: () => void) => {
  const id = setTimeout(callback, 16);
  return () => clearTimeout(id);
};

beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9, 0) }));
afterEach(() => vi.useRealTimers());

describe('useReplay', () => {
  it('plays the window in recorded order, paced by the recorded times × the speed, in pages fetched ahead', async () => {
    const rec = recording();
    const { result } = renderHook(() => useReplay(rec.client, { frame, pageSize: 50 }));
    act(() => result.current.start({ from: FROM, to: TO }, 10));
    const replay = result.current.replay!;
    let notified = 0;
    replay.port.subscribe(() => notified++);
    await act(() => vi.advanceTimersByTimeAsync(500));
    // 500 ms at 10×: five recorded seconds played, nothing after the clock.
    const clock = replay.getState().clock;
    expect(clock - FROM).toBeGreaterThanOrEqual(4_800);
    expect(clock - FROM).toBeLessThanOrEqual(5_000);
    const rows = replay.port.getState().rows;
    expect(rows.length).toBe(rec.port.filter((e) => e.at < clock).length);
    // Newest first, as the live stream: the recorded times fall row by row.
    const times = rows.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(rows.at(-1)!.at).toBe(FROM);
    // Fetched ahead in bounded pages, never the whole window at once.
    expect(rec.asked.every((a) => a.limit === 50)).toBe(true);
    expect(rec.asked.length).toBeLessThan(280 / 50);
    // The cluster's false 404s reach the tally, per client.
    expect(replay.cluster.getFalse404s().rows.reduce((n, r) => n + r.count, 0)).toBe(rec.cluster.filter((e) => e.at < clock).length);
    // Per frame, and the screen told at most every 250 ms: a few notifications, not one per event.
    expect(notified).toBeLessThanOrEqual(4);

    // Paused: the clock holds.
    act(() => replay.pause());
    const paused = replay.getState().clock;
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(replay.getState()).toMatchObject({ clock: paused, status: 'paused' });

    // 60×: the rest of the window (about 15 recorded seconds) in a quarter of a second.
    act(() => {
      replay.setSpeed(60);
      replay.play();
    });
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(replay.getState()).toMatchObject({ status: 'ended', clock: TO, played: 280, cluster: true });
    expect(replay.port.getState().rows.map((e) => e.at)).toEqual(rec.port.map((e) => e.at).reverse());
    expect(rec.asked.length).toBe(Math.ceil(280 / 50));
  });

  it('tells the screen at once when it pauses or ends: a still screen shows every event up to its clock', async () => {
    const rec = recording();
    const { result } = renderHook(() => useReplay(rec.client, { frame, pageSize: 100 }));
    act(() => result.current.start({ from: FROM, to: TO }, 10));
    const replay = result.current.replay!;
    let told = 0;
    let shown = 0;
    replay.port.subscribe(() => {
      told++;
      shown = replay.port.getState().rows.length;
    });
    // 100 ms after the first notification: frames have played more than the screen was told.
    await act(() => vi.advanceTimersByTimeAsync(400));
    const before = told;
    expect(shown).toBeLessThan(replay.port.getState().rows.length);
    act(() => replay.pause());
    expect(told).toBe(before + 1);
    expect(shown).toBe(replay.port.getState().rows.length);
    expect(shown).toBe(rec.port.filter((e) => e.at < replay.getState().clock).length);
    // Played to the end at 60×: the last events are told as the replay ends, not a throttle later.
    act(() => {
      replay.setSpeed(60);
      replay.play();
    });
    for (let i = 0; i < 200 && replay.getState().status !== 'ended'; i++) await act(() => vi.advanceTimersByTimeAsync(16));
    expect(replay.getState().status).toBe('ended');
    expect(shown).toBe(rec.port.length);
  });

  it('holds the clock at what has been read while a page is on its way, then goes on without a jump', async () => {
    const rec = recording(2_000);
    const { result } = renderHook(() => useReplay(rec.client, { frame, pageSize: 100 }));
    act(() => result.current.start({ from: FROM, to: TO }, 60));
    const replay = result.current.replay!;
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(replay.getState()).toMatchObject({ clock: FROM, waiting: true, played: 0 });
    await act(() => vi.advanceTimersByTimeAsync(1_100));
    // The first page read: the clock moves on from where it waited, at 60×, up to the page's end at most.
    const { clock, played } = replay.getState();
    expect(clock).toBeGreaterThan(FROM);
    expect(played).toBeGreaterThan(0);
    expect(replay.port.getState().rows[0]!.at).toBeLessThan(clock);
  });

  it('stop goes back to the live stream and fetches nothing more', async () => {
    const rec = recording();
    const { result } = renderHook(() => useReplay(rec.client, { frame, pageSize: 50 }));
    act(() => result.current.start({ from: FROM, to: TO }, 1));
    await act(() => vi.advanceTimersByTimeAsync(100));
    const asked = rec.asked.length;
    act(() => result.current.stop());
    expect(result.current.replay).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    expect(rec.asked.length).toBe(asked);
  });
});
