// Smoke test of `npm run bench`: the figures are produced and finite. Speed targets are judged
// by the bench itself, never by a timed test.
import { describe, expect, it } from 'vitest';
import { microFigures } from './micro.js';
import { serveRecordedRss } from './recording/serve-rss.js';

describe('bench (quick smoke)', () => {
  it('produces every routing-core figure with a unit', () => {
    const figures = microFigures();
    expect(figures.map((f) => f.name)).toEqual([
      'decision per request (local / rerouted / watch mix)',
      'request classification (requestInfo), for information',
      'merge of 5 servers × 1,000 CRD group-versions',
      'route-table rebuild after one server changed',
      'upgrade-impact usage count per request, for information',
    ]);
    for (const f of figures) {
      expect(Number.isFinite(f.value) && f.value > 0, f.name).toBe(true);
      expect(f.unit).toMatch(/^(µs|ms)$/);
    }
  });

  it('feeds serve --record on its webhook and reads its RSS once every event is counted and recorded', async () => {
    // serveRecordedRss throws unless serve's metrics and the recording both count every event posted.
    const r = await serveRecordedRss(20_000);
    expect(r.events).toBe(20_000);
    expect(r.rssMiB).toBeGreaterThan(20);
    expect(r.peakMiB).toBeGreaterThanOrEqual(r.rssMiB);
  }, 120_000);
});
