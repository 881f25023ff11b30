import { describe, expect, it } from 'vitest';
import { routingEventSchema, type RoutingEvent } from '../../contract/events.js';
import { RingBuffer } from './ring-buffer.js';
import { Telemetry } from './telemetry.js';

const base: Omit<RoutingEvent, 'seq'> = {
  at: 0,
  userAgent: 'kubectl',
  method: 'GET',
  verb: 'list',
  path: '/apis/resource.k8s.io/v1/deviceclasses',
  group: 'resource.k8s.io',
  version: 'v1',
  resource: 'deviceclasses',
  subresource: '',
  namespace: '',
  handling: 'a',
  answeredBy: 'b',
  outcome: 'rerouted',
  status: 200,
  latencyMs: 1.5,
  bytesIn: 0,
  bytesOut: 120,
};

describe('RingBuffer', () => {
  it('keeps only the newest items, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    for (let i = 1; i <= 5; i++) ring.push(i);
    expect(ring.size).toBe(3);
    expect(ring.recent()).toEqual([3, 4, 5]);
    expect(ring.recent(2)).toEqual([4, 5]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});

describe('Telemetry', () => {
  it('numbers events, bounds the buffer and counts by outcome × GVR × server', () => {
    const t = new Telemetry(2);
    const seen: number[] = [];
    const off = t.subscribe((e) => seen.push(e.seq));
    t.record(base);
    t.record(base);
    off();
    t.record({ ...base, outcome: 'notfound', handling: 'a', answeredBy: 'a', status: 404 });
    expect(t.recent().map((e) => e.seq)).toEqual([2, 3]);
    expect(seen).toEqual([1, 2]);
    expect(t.totals().rerouted).toBe(2);
    expect(t.totals().notfound).toBe(1);
    expect(t.counterRows()).toContainEqual({
      outcome: 'rerouted',
      group: 'resource.k8s.io',
      version: 'v1',
      resource: 'deviceclasses',
      handling: 'a',
      answeredBy: 'b',
      count: 2,
    });
    expect(routingEventSchema.parse(t.recent(1)[0])).toBeTruthy();
  });

  it('exposes Prometheus text with escaped labels', async () => {
    const t = new Telemetry();
    t.record({ ...base, resource: 'we"ird' });
    const text = await t.prometheus();
    expect(text).toContain('# TYPE peerscope_requests_total counter');
    expect(text).toContain('resource="we\\"ird"');
    expect(text).toMatch(/answered_by="b",answered_by_id="b"} 1\n/);
  });
});
