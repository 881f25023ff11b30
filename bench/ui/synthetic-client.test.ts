// The Chromium figures' data source: what it pushes is what the core's service would (contract-valid
// batches, exact counts, at most 500 events each) at the rate asked for. Speed is judged by the bench.
import { describe, expect, it } from 'vitest';
import { coreEventSchema, overviewSchema, routeTableViewSchema, type CoreEvent } from '../../proxy-core/contract/index.js';
import { missedFramesPercent, percentile } from './chromium.js';
import { createSyntheticClient } from './synthetic-client.js';

describe('the synthetic CoreClient of the UI bench', () => {
  it('pushes contract-valid routing batches at the rate asked for', async () => {
    const client = createSyntheticClient({ rows: 5_000, batchMs: 50 });
    const batches: CoreEvent[] = [];
    const stop = client.subscribe((e) => batches.push(e));
    client.setRate(10_000);
    await new Promise((r) => setTimeout(r, 500));
    client.setRate(0);
    stop();
    client.close();
    expect(batches.length).toBeGreaterThan(3);
    let count = 0;
    for (const b of batches) {
      const parsed = coreEventSchema.parse(b);
      if (parsed.type !== 'routing') throw new Error('only routing batches');
      expect(parsed.events.length).toBeLessThanOrEqual(500);
      expect(Object.values(parsed.counts).reduce((a, n) => a + n, 0)).toBe(parsed.count);
      expect(parsed.events.at(-1)!.seq).toBe(parsed.lastSeq);
      count += parsed.count;
    }
    // 500 per 50 ms window, whatever the timer's jitter.
    expect(count).toBe(batches.length * 500);
    expect(client.generated).toBe(count);
  });

  it('serves a route table of 5,000 GVRs with skew, and an overview', async () => {
    const client = createSyntheticClient({ rows: 5_000 });
    const table = routeTableViewSchema.parse(await client.getRouteTable());
    expect(table.rows).toHaveLength(5_000);
    expect(table.skewedCount).toBe(500);
    overviewSchema.parse(await client.getOverview());
    client.close();
  });

  it('pushes contract-valid cluster batches at the rate asked for, and says it has a cluster source', async () => {
    const client = createSyntheticClient({ rows: 5_000, batchMs: 50, cluster: true });
    expect(overviewSchema.parse(await client.getOverview()).cluster?.servers).toHaveLength(3);
    const batches: CoreEvent[] = [];
    const stop = client.subscribe((e) => batches.push(e));
    client.setClusterRate(5_000);
    await new Promise((r) => setTimeout(r, 500));
    client.setClusterRate(0);
    stop();
    client.close();
    let count = 0;
    let false404s = 0;
    for (const b of batches) {
      const parsed = coreEventSchema.parse(b);
      if (parsed.type !== 'cluster') throw new Error('only cluster batches');
      expect(Object.values(parsed.counts).reduce((a, n) => a + n, 0)).toBe(parsed.count);
      count += parsed.count;
      false404s += parsed.counts['false-404'];
    }
    // 250 per 50 ms window.
    expect(count).toBe(batches.length * 250);
    expect(false404s).toBeGreaterThan(0);
    expect(client.clusterGenerated).toBe(count);
  });

  it('refuses a cluster feed without a cluster source', () => {
    const client = createSyntheticClient({ rows: 10 });
    expect(() => client.setClusterRate(1)).toThrow(/without a cluster source/);
    client.close();
  });

  it('percentile', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([16.7, 16.7, 16.6, 33.3], 95)).toBe(33.3);
    expect(Number.isNaN(percentile([], 95))).toBe(true);
  });

  it('missed frames at 60 fps: an interval of two display frames missed one', () => {
    expect(missedFramesPercent([16.7, 16.6, 16.7, 16.7])).toBe(0);
    // 4 drawn, one interval of 2 periods (1 missed) and one of 3 (2 missed): 3 of 7.
    expect(missedFramesPercent([16.7, 33.3, 50, 16.7])).toBeCloseTo((3 / 7) * 100);
    expect(Number.isNaN(missedFramesPercent([]))).toBe(true);
  });
});
