// The port gives back what a burst left once it goes quiet: real garbage in this process's heap,
// a real idle event loop, and the heap V8 reports before and after.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectWhenQuiet, worthCollecting } from './quiet-collection.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Small objects that live long enough to reach the old generation: ~200 MiB for 1.5 million. */
function objects(count = 1_500_000): unknown[] {
  const kept: unknown[] = [];
  for (let i = 0; i < count; i++) kept.push({ at: i, text: `event ${i}`, pair: [i, i] });
  return kept;
}

/** Garbage a burst leaves. */
function burst(count?: number): void {
  objects(count);
}

describe('collectWhenQuiet', () => {
  it('returns the heap to what is live after a quiet spell, and not while the loop is busy', async () => {
    const stop = collectWhenQuiet({ quietMs: 1_000, tickMs: 100, growthBytes: 16 * MiB });
    try {
      burst();
      const grown = getHeapStatistics().total_heap_size;
      expect(grown).toBeGreaterThan(120 * MiB);
      // Busy: the loop is kept at work for 1.5 s, so no spell is quiet long enough.
      for (const until = performance.now() + 1_500; performance.now() < until;) {
        const spin = performance.now() + 50;
        while (performance.now() < spin);
        await sleep(5);
      }
      expect(getHeapStatistics().total_heap_size).toBeGreaterThan(grown - 40 * MiB);
      // Quiet: within 1 s of quiet and a tick, the collection has run.
      await sleep(2_000);
      expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - 80 * MiB);
    } finally {
      stop();
    }
  }, 30_000);

  it('collects once on the first quiet spell even below the growth threshold (start-up garbage)', async () => {
    const stop = collectWhenQuiet({ quietMs: 500, tickMs: 100, growthBytes: 4 * 1024 * MiB });
    try {
      burst();
      const grown = getHeapStatistics().total_heap_size;
      await sleep(1_500);
      expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - 80 * MiB);
      // Only once: a second burst below the threshold stays until V8 collects it.
      burst();
      const again = getHeapStatistics().total_heap_size;
      await sleep(1_500);
      expect(getHeapStatistics().total_heap_size).toBeGreaterThan(again - 40 * MiB);
    } finally {
      stop();
    }
  }, 30_000);
});

describe('worthCollecting', () => {
  const at = { collected: true, resting: 85 * MiB, growth: 48 * MiB, sinceLast: 16 * MiB };
  it('collects on the first quiet spell whatever the size', () => {
    expect(worthCollecting({ ...at, collected: false, rss: 86 * MiB, least: 86 * MiB })).toBe(true);
  });

  it('collects well above the port at rest, though the growth since the last collection is below that line', () => {
    // A collection between two loads left 110 MiB; the last load took it to 151: 41 MiB since, 66 above rest.
    expect(worthCollecting({ ...at, rss: 151 * MiB, least: 110 * MiB })).toBe(true);
  });

  it('does not collect near the size at rest, nor again with nothing grown since the last collection', () => {
    expect(worthCollecting({ ...at, rss: 120 * MiB, least: 90 * MiB })).toBe(false);
    // Live memory grew (a larger cluster): 200 MiB after the last collection, 205 now.
    expect(worthCollecting({ ...at, rss: 205 * MiB, least: 200 * MiB })).toBe(false);
  });
});
