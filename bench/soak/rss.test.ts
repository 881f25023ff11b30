import { describe, expect, it } from 'vitest';
import { rssGrowth, type RssSample } from './rss.js';

const series = (seconds: number, at: (t: number) => number): RssSample[] =>
  Array.from({ length: seconds / 2 + 1 }, (_, i) => ({ t: i * 2, rssMiB: at(i * 2) }));

describe('rssGrowth', () => {
  it('compares the median after warm-up with the median of the last window', () => {
    // 10 min: warm-up 2 min, windows 1 min; a start-up climb, then flat with GC swings.
    const g = rssGrowth(
      series(600, (t) => (t < 60 ? 60 + t / 2 : 95 + (t % 10 === 0 ? 8 : 0))),
      600,
    );
    expect(g).toMatchObject({ warmupSeconds: 120, windowSeconds: 60, afterWarmupMiB: 95, endMiB: 95, growthPercent: 0 });
    expect(g.peakMiB).toBe(103);
  });

  it('reports a steady climb', () => {
    const g = rssGrowth(
      series(600, (t) => 100 + t / 10),
      600,
    );
    expect(g.afterWarmupMiB).toBeCloseTo(115, 0);
    expect(g.endMiB).toBeCloseTo(157, 0);
    expect(g.growthPercent).toBeGreaterThan(30);
  });

  it('scales warm-up and windows down for a short run', () => {
    const g = rssGrowth(
      series(60, () => 80),
      60,
    );
    expect(g.warmupSeconds).toBe(20);
    expect(g.windowSeconds).toBe(10);
    expect(g.growthPercent).toBe(0);
  });
});
