// Smoke test of the long soak (`npm run bench -- --soak-minutes N`): a few seconds of it, with short
// rollout phases — the real figures come from the bench, never from a timed test.
import { describe, expect, it } from 'vitest';
import { longSoak } from './long-soak.js';

describe('long soak (smoke)', () => {
  it("runs rollouts through peerscope serve, judges each, and samples the port's RSS", async () => {
    const lines: string[] = [];
    const result = await longSoak({
      minutes: 0.1,
      rps: 100,
      phases: { drainSeconds: 0.3, downSeconds: 0.3, upSettleSeconds: 0.2 },
      log: (l) => lines.push(l),
    });
    expect(result.crashed).toBeUndefined();
    expect(result.cycles.length).toBeGreaterThanOrEqual(1);
    expect(result.totals.requests).toBeGreaterThan(0);
    expect(result.totals.lostWrites).toBe(0);
    expect(result.totals.watchesLost).toBe(0);
    expect(result.rss.samples).toBeGreaterThan(0);
    expect(Number.isFinite(result.rss.growthPercent)).toBe(true);
    expect(lines.some((l) => /#\s+1 .* → v1\.37-dev/.test(l))).toBe(true);
  }, 60_000);
});
