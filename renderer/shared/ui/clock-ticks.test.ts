import { describe, expect, it } from 'vitest';
import { clockTickBudget, clockTicks } from './clock-ticks.js';

describe('clockTicks', () => {
  it('puts ticks on round clock times within the range', () => {
    // 120 seconds, at most 8 ticks: every 15 s, starting at the first multiple of 15 in range.
    expect(clockTicks(1_000_003, 1_000_122, 8, 1_000)).toEqual([
      1_000_005, 1_000_020, 1_000_035, 1_000_050, 1_000_065, 1_000_080, 1_000_095, 1_000_110,
    ]);
  });

  it('never gives more than the budget', () => {
    for (const span of [1, 7, 59, 60, 61, 599, 3_600, 86_400, 10 * 86_400]) {
      for (const budget of [2, 3, 5, 10]) {
        const ticks = clockTicks(1_700_000_000_000, 1_700_000_000_000 + span * 1_000, budget);
        expect(ticks.length, `${span} s, budget ${budget}`).toBeLessThanOrEqual(budget);
        expect(ticks.length, `${span} s, budget ${budget}`).toBeGreaterThanOrEqual(1);
        for (const t of ticks) expect(t % 1_000).toBe(0);
      }
    }
  });

  it('works in milliseconds, and on an empty or one-point range', () => {
    expect(clockTicks(60_500, 180_000, 3)).toEqual([120_000, 180_000]);
    expect(clockTicks(5, 5, 4)).toEqual([5]);
    expect(clockTicks(Number.NaN, Number.NaN, 4)).toEqual([]);
  });

  it('sizes the budget from the chart width', () => {
    expect(clockTickBudget(1_100)).toBe(10);
    expect(clockTickBudget(100)).toBe(2);
  });
});
