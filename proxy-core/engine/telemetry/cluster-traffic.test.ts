import { describe, expect, it } from 'vitest';
import type { ClusterEvent } from '../../contract/cluster.js';
import { ClusterTraffic } from './cluster-traffic.js';

const T0 = 1_800_000_000_000; // a round minute
const PCR = { group: 'certificates.k8s.io', version: 'v1', resource: 'podcertificaterequests' };

function event(at: number, partial: Partial<ClusterEvent> = {}): Omit<ClusterEvent, 'seq'> {
  return {
    at,
    server: 'a',
    userAgent: 'kubectl/v1.36.0',
    user: 'admin',
    verb: 'list',
    path: '/apis/certificates.k8s.io/v1/podcertificaterequests',
    ...PCR,
    subresource: '',
    namespace: '',
    outcome: 'local',
    code: 200,
    latencyMs: 1,
    ...partial,
  };
}

describe('ClusterTraffic', () => {
  it('numbers events, keeps the newest in a bounded ring, counts every outcome and tells subscribers', () => {
    const traffic = new ClusterTraffic(['a', 'b'], 3);
    const told: number[] = [];
    const unsubscribe = traffic.subscribe((e) => told.push(e.seq));
    for (let i = 0; i < 5; i++) traffic.record(event(T0 + i, i % 2 ? { outcome: 'false-404', code: 404 } : {}));
    unsubscribe();
    traffic.record(event(T0 + 5, { outcome: 'not-judged' }));
    expect(traffic.recent().map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(traffic.lastSeq).toBe(6);
    expect(told).toEqual([1, 2, 3, 4, 5]);
    expect(traffic.totals()).toMatchObject({ local: 3, 'false-404': 2, 'not-judged': 1, notfound: 0 });
  });

  it('counts requests, 5xx and false 404s per server per minute, a watch in the minute it ended', () => {
    const traffic = new ClusterTraffic(['a', 'b']);
    traffic.record(event(T0 + 1_000));
    traffic.record(event(T0 + 2_000, { outcome: 'false-404', code: 404 }));
    traffic.record(event(T0 + 3_000, { code: 503, outcome: 'unavailable' }));
    // Received in the first minute, ended in the second.
    traffic.record(event(T0 + 50_000, { verb: 'watch', latencyMs: 20_000 }));
    traffic.record(event(T0 + 61_000, { server: 'b' }));
    expect(traffic.minutes('a')).toEqual([
      { at: T0, requests: 3, errors: 1, false404s: 1 },
      { at: T0 + 60_000, requests: 1, errors: 0, false404s: 0 },
    ]);
    expect(traffic.minutes('b')).toEqual([{ at: T0 + 60_000, requests: 1, errors: 0, false404s: 0 }]);
    expect(traffic.minutes('c')).toEqual([]);
  });

  it('per server and GVR: the last minute only, and the seconds it covers', () => {
    const traffic = new ClusterTraffic(['a', 'b']);
    expect(traffic.gvrRates(T0)).toEqual({ seconds: 0, cells: [] });
    traffic.record(event(T0, { outcome: 'false-404', code: 404 }));
    traffic.record(event(T0 + 10_000, { outcome: 'false-404', code: 404 }));
    traffic.record(event(T0 + 10_000, { server: 'b' }));
    // A non-resource request has no GVR cell.
    traffic.record(event(T0 + 10_000, { group: '', version: '', resource: '', path: '/readyz', outcome: 'non-resource' }));
    expect(traffic.gvrRates(T0 + 30_000).seconds).toBeCloseTo(30, 0);
    expect(traffic.gvrRates(T0 + 30_000).cells).toEqual([
      { server: 'a', ...PCR, requests: 2, false404s: 2 },
      { server: 'b', ...PCR, requests: 1, false404s: 0 },
    ]);
    // Over a minute later the first request has left the window.
    const later = traffic.gvrRates(T0 + 66_000);
    expect(later.seconds).toBe(60);
    expect(later.cells).toEqual([
      { server: 'a', ...PCR, requests: 1, false404s: 1 },
      { server: 'b', ...PCR, requests: 1, false404s: 0 },
    ]);
    expect(traffic.gvrRates(T0 + 200_000).cells).toEqual([]);
  });
});
