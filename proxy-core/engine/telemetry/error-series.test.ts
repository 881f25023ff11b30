import { describe, expect, it } from 'vitest';
import { ErrorSeries } from './error-series.js';
import { Telemetry } from './telemetry.js';

describe('error series', () => {
  it('counts failures per server in fixed buckets, bounded', () => {
    const s = new ErrorSeries(1_000, 3);
    for (const at of [100, 900, 1_500, 4_200, 5_000, 7_999, 6_100]) s.add('a', at);
    s.add('b', 2_000);
    // 0 s: 2, 1 s: 1 (dropped: only 3 buckets kept), 4 s: 1, 5 s: 1, 7 s: 2 (the late 6.1 s joins the newest)
    expect(s.of('a')).toEqual([
      { at: 4_000, count: 1 },
      { at: 5_000, count: 1 },
      { at: 7_000, count: 2 },
    ]);
    expect(s.of('b')).toEqual([{ at: 2_000, count: 1 }]);
    expect(s.of('nobody')).toEqual([]);
  });

  it("telemetry counts a server's own 5xx and failures reported where they happened, not 4xx or Peerscope's own answers", () => {
    const t = new Telemetry(10);
    const base = {
      userAgent: '',
      method: 'GET',
      verb: 'get',
      path: '/x',
      group: '',
      version: 'v1',
      resource: 'pods',
      subresource: '',
      namespace: '',
      latencyMs: 1,
      bytesIn: 0,
      bytesOut: 0,
    };
    t.record({ ...base, at: 10_000, handling: 'a', answeredBy: 'a', outcome: 'local', status: 500 });
    t.record({ ...base, at: 10_000, handling: 'a', answeredBy: 'a', outcome: 'local', status: 404 });
    t.record({ ...base, at: 10_000, handling: 'a', answeredBy: null, outcome: 'notfound', status: 404 });
    t.record({ ...base, at: 10_000, handling: null, answeredBy: null, outcome: 'unavailable', status: 503 });
    t.serverFailed('b', 11_000);
    expect(t.errorSeries('a')).toEqual([{ at: 10_000, count: 1 }]);
    expect(t.errorSeries('b')).toEqual([{ at: 10_000, count: 1 }]);
  });
});
