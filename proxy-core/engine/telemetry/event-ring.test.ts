import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeOutcomes, type RoutingEvent } from '../../contract/events.js';
import { EventRing } from './event-ring.js';

const text = fc.string({ maxLength: 12 });
const eventArb: fc.Arbitrary<RoutingEvent> = fc.record(
  {
    seq: fc.nat(),
    at: fc.double({ min: 0, max: 4e12, noNaN: true }),
    userAgent: text,
    method: fc.constantFrom('GET', 'POST', 'PATCH'),
    verb: text,
    path: text.map((s) => `/api/v1/${s}`),
    group: text,
    version: text,
    resource: text,
    subresource: text,
    namespace: text,
    handling: fc.option(text, { nil: null }),
    answeredBy: fc.option(text, { nil: null }),
    outcome: fc.constantFrom(...routeOutcomes),
    status: fc.integer({ min: 100, max: 599 }),
    latencyMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    bytesIn: fc.nat(),
    bytesOut: fc.nat(),
    error: text,
  },
  {
    requiredKeys: [
      'seq',
      'at',
      'userAgent',
      'method',
      'verb',
      'path',
      'group',
      'version',
      'resource',
      'subresource',
      'namespace',
      'handling',
      'answeredBy',
      'outcome',
      'status',
      'latencyMs',
      'bytesIn',
      'bytesOut',
    ],
  },
);

describe('EventRing', () => {
  it('gives back exactly the newest events, oldest first, whatever was pushed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(eventArb, { maxLength: 60 }), fc.nat(80), (capacity, events, n) => {
        const ring = new EventRing(capacity);
        for (const e of events) ring.push(e);
        const kept = events.slice(-capacity);
        expect(ring.size).toBe(kept.length);
        expect(ring.recent()).toEqual(kept);
        expect(ring.recent(n)).toEqual(n === 0 ? [] : kept.slice(-n));
      }),
    );
  });

  it('keeps every string as sent when more distinct strings come than the intern tables hold', () => {
    const ring = new EventRing(10);
    const base = events(20_000);
    for (const e of base) ring.push(e);
    expect(ring.recent()).toEqual(base.slice(-10));
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new EventRing(0)).toThrow(RangeError);
    expect(() => new EventRing(1.5)).toThrow(RangeError);
  });
});

function events(n: number): RoutingEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    at: 1_700_000_000_000 + i,
    userAgent: `agent-${i}`,
    method: 'GET',
    verb: 'get',
    path: `/api/v1/namespaces/ns-${i}/pods/p-${i}`,
    group: '',
    version: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: `ns-${i}`,
    handling: 'sim-1',
    answeredBy: i % 2 ? 'sim-2' : null,
    outcome: i % 2 ? 'rerouted' : 'local',
    status: 200,
    latencyMs: i / 7,
    bytesIn: 0,
    bytesOut: i,
  }));
}
