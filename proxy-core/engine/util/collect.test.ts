// A long synchronous loop gives back its garbage when RSS passes the growth limit: real garbage in
// this process's heap, and the heap V8 reports before and after.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { GrowthLimit } from './collect.js';

const MiB = 1024 * 1024;

/** Garbage of small objects that reach the old generation (~130 MiB), as a writer's row groups leave. */
function garbage(): number {
  let kept: unknown[] = [];
  for (let i = 0; i < 1_000_000; i++) kept.push({ at: i, text: `event ${i}`, pair: [i, i] });
  const n = kept.length;
  kept = [];
  return n + kept.length;
}

describe('GrowthLimit', () => {
  it('does not collect while RSS stays within the growth', () => {
    const limit = new GrowthLimit(4_096 * MiB);
    garbage();
    limit.check();
    expect(limit.collections).toBe(0);
  });

  it('collects once RSS has grown past it, and the heap falls back to what is live', () => {
    const limit = new GrowthLimit(16 * MiB);
    garbage();
    const grown = getHeapStatistics().used_heap_size;
    limit.check();
    expect(limit.collections).toBe(1);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(grown - 64 * MiB);
  });

  it('after a collection, waits for more growth before the next: live memory does not make every check collect', () => {
    const limit = new GrowthLimit(16 * MiB);
    garbage();
    limit.check();
    limit.check();
    expect(limit.collections).toBe(1);
    garbage();
    limit.check();
    expect(limit.collections).toBe(2);
  });
});
