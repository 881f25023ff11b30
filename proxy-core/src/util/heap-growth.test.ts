import { describe, expect, it } from 'vitest';
import { fixHeapGrowth, HEAP_GROWING_PERCENT } from './heap-growth.js';

describe('fixHeapGrowth', () => {
  it('applies the port’s growth factor unless the environment overrides it', () => {
    expect(fixHeapGrowth({})).toBe(HEAP_GROWING_PERCENT);
    expect(fixHeapGrowth({ PEERSCOPE_HEAP_GROWING_PERCENT: '0' })).toBe(0);
    expect(fixHeapGrowth({ PEERSCOPE_HEAP_GROWING_PERCENT: '150' })).toBe(150);
    fixHeapGrowth({});
  });

  it('names the variable and the value it cannot use', () => {
    for (const bad of ['abc', '-1', '2.5', '5000'])
      expect(() => fixHeapGrowth({ PEERSCOPE_HEAP_GROWING_PERCENT: bad })).toThrow(
        `PEERSCOPE_HEAP_GROWING_PERCENT: "${bad}" is not a whole number from 0 to 1000`,
      );
  });
});
