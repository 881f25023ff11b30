// Client-made text cannot grow the telemetry without bound (found by the port fuzz: /metrics had
// grown to 734 KB and the port's RSS kept rising under made-up paths).
import { describe, expect, it } from 'vitest';
import { MAX_COUNTER_ROWS, MAX_EVENT_TEXT, OTHER_RESOURCE, Telemetry } from './telemetry.js';

const event = (resource: string, path = `/apis/x.example/v1/${resource}`) => ({
  at: 0,
  userAgent: 'u',
  method: 'GET',
  verb: 'list',
  path,
  group: 'x.example',
  version: 'v1',
  resource,
  subresource: '',
  namespace: '',
  handling: 'a',
  answeredBy: 'a',
  outcome: 'notfound' as const,
  status: 404,
  latencyMs: 1,
  bytesIn: 0,
  bytesOut: 0,
});

describe('telemetry bounds', () => {
  it('keeps at most the first MAX_EVENT_TEXT characters of a path and a user agent', () => {
    const t = new Telemetry(10);
    const e = t.record({ ...event('pods', `/api/v1/${'x'.repeat(60_000)}`), userAgent: 'y'.repeat(60_000) });
    expect(e.path.length).toBe(MAX_EVENT_TEXT + 1);
    expect(e.path.endsWith('…')).toBe(true);
    expect(e.userAgent.length).toBe(MAX_EVENT_TEXT + 1);
    expect(t.record(event('pods')).path).toBe('/apis/x.example/v1/pods');
  });

  it('counts made-up GVRs past MAX_COUNTER_ROWS in one "(other)" row per outcome and servers', () => {
    const t = new Telemetry(10);
    for (let i = 0; i < MAX_COUNTER_ROWS + 500; i++) t.record(event(`made-up-${i}`));
    const rows = t.counterRows();
    expect(rows.length).toBe(MAX_COUNTER_ROWS + 1);
    expect(rows.find((r) => r.resource === OTHER_RESOURCE)).toMatchObject({
      outcome: 'notfound',
      handling: 'a',
      answeredBy: 'a',
      count: 500,
    });
    expect(t.totals().notfound).toBe(MAX_COUNTER_ROWS + 500);
    // Known rows keep counting.
    t.record(event('made-up-0'));
    expect(rows.length).toBe(t.counterRows().length);
    expect(t.counterRows().find((r) => r.resource === 'made-up-0')?.count).toBe(2);
  });
});
