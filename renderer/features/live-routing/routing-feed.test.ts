// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { FakeCoreClient, routingEvent, totals } from '../../test/fake-client.js';
import { MAX_ROWS, NOTIFY_MS, RoutingFeed } from './routing-feed.js';

describe('routing feed', () => {
  it('merges events the stream brought before the first load, without duplicates, newest first', async () => {
    const client = new FakeCoreClient();
    client.events = [routingEvent(1), routingEvent(2), routingEvent(3)];
    const feed = new RoutingFeed(client, () => 5_000);
    let resolveLoad!: () => void;
    const loaded = new Promise<void>((r) => (resolveLoad = r));
    const getEvents = client.getEvents.bind(client);
    client.getEvents = async () => {
      await loaded;
      return getEvents();
    };
    const stop = feed.start();
    client.emit({
      type: 'routing',
      events: [routingEvent(3), routingEvent(4)],
      counts: totals({ local: 2 }),
      count: 2,
      windowMs: 100,
      lastSeq: 4,
    });
    expect(feed.getState().rows.map((e) => e.seq)).toEqual([4, 3]);
    resolveLoad();
    await feed.load();
    expect(feed.getState()).toMatchObject({ status: 'ready', lastSeq: 4 });
    expect(feed.getState().rows.map((e) => e.seq)).toEqual([4, 3, 2, 1]);
    expect(feed.getState().series).toEqual([expect.objectContaining({ t: 5, local: 2 })]);
    stop();
    expect(client.subscriberCount).toBe(0);
  });

  it('tells its listeners of routing batches at most every NOTIFY_MS; the state is always current', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const client = new FakeCoreClient();
      client.events = [];
      const feed = new RoutingFeed(client);
      let told = 0;
      feed.subscribe(() => told++);
      const stop = feed.start();
      await vi.advanceTimersByTimeAsync(1_000);
      told = 0;
      const batch = (seq: number) =>
        client.emit({ type: 'routing', events: [routingEvent(seq)], counts: totals({ local: 1 }), count: 1, windowMs: 100, lastSeq: seq });
      batch(1);
      expect(told).toBe(1); // the first at once
      batch(2);
      batch(3);
      expect(told).toBe(1);
      expect(feed.getState().rows.map((e) => e.seq)).toEqual([3, 2, 1]);
      await vi.advanceTimersByTimeAsync(NOTIFY_MS);
      expect(told).toBe(2); // the rest together
      for (let seq = 4; seq < 14; seq++) {
        batch(seq);
        await vi.advanceTimersByTimeAsync(100);
      }
      // Ten batches a second become four notifications a second.
      expect(told).toBeLessThanOrEqual(2 + Math.ceil(1_000 / NOTIFY_MS));
      stop();
      await vi.advanceTimersByTimeAsync(NOTIFY_MS);
      const after = told;
      await vi.advanceTimersByTimeAsync(1_000);
      expect(told).toBe(after);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps at most MAX_ROWS and reports a failed load', async () => {
    const client = new FakeCoreClient();
    client.failWith = 'core unreachable';
    const feed = new RoutingFeed(client);
    const stop = feed.start();
    await feed.load();
    expect(feed.getState()).toMatchObject({ status: 'error', error: 'core unreachable' });
    const many = Array.from({ length: MAX_ROWS + 10 }, (_, i) => routingEvent(i + 1));
    client.emit({
      type: 'routing',
      events: many,
      counts: totals({ local: many.length }),
      count: many.length,
      windowMs: 100,
      lastSeq: many.length,
    });
    expect(feed.getState().rows).toHaveLength(MAX_ROWS);
    expect(feed.getState().rows[0]!.seq).toBe(MAX_ROWS + 10);
    stop();
  });
});
