// A routing event as the port records one (a GET list of core pods handled locally by sim-1), for
// tests that need events in a snapshot or the telemetry; each test overrides what it is about.
import type { RoutingEvent } from '../contract/events.js';

export type RecordedEvent = Omit<RoutingEvent, 'seq'>;

export function routingEvent(overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    at: 1,
    userAgent: 'kubectl/v1.32',
    method: 'GET',
    verb: 'list',
    path: '/api/v1/pods',
    group: '',
    version: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: '',
    handling: 'sim-1',
    answeredBy: 'sim-1',
    outcome: 'local',
    status: 200,
    latencyMs: 1,
    bytesIn: 0,
    bytesOut: 1,
    ...overrides,
  };
}
