// Routing snapshots for component tests: the fake client's cluster (sim-1 at v1.37, sim-2 and sim-3
// at v1.36) captured at a fixed time, and the same cluster after sim-2's upgrade.
import type { RoutingEvent, RoutingSnapshot } from '../../proxy-core/contract/index.js';
import { routingEvent } from './fake-client.js';

export const TAKEN_AT = '2026-11-23T08:00:00.000Z';

export function sampleSnapshot(overrides: Partial<RoutingSnapshot> = {}): RoutingSnapshot {
  const at = Date.parse(TAKEN_AT);
  const events: RoutingEvent[] = Array.from({ length: 40 }, (_, i) =>
    routingEvent(i + 1, {
      at: at - 10_000 + i * 250,
      ...(i % 4 === 0
        ? {
            outcome: 'rerouted' as const,
            handling: 'sim-2',
            answeredBy: 'sim-1',
            path: '/apis/certificates.k8s.io/v1/clustertrustbundles',
            group: 'certificates.k8s.io',
            resource: 'clustertrustbundles',
            userAgent: 'recorded-client/1.0',
          }
        : { userAgent: 'recorded-client/1.0' }),
    }),
  );
  return {
    apiVersion: 'peerscope.dev/v1',
    kind: 'RoutingSnapshot',
    takenAt: TAKEN_AT,
    source: { kind: 'sim', peerscopeVersion: '0.1.0' },
    settings: { discoveryMode: 'nopeer', policy: 'pin:sim-2' },
    servers: [
      {
        name: 'sim-1',
        url: 'https://127.0.0.1:6441',
        source: 'sim',
        health: 'ready',
        failingChecks: [],
        gitVersion: 'v1.37.0-dev',
        latencyMs: 2.5,
        discovery: {
          state: 'ok',
          gvrs: ['/v1/pods', 'apps/v1/deployments', 'certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'],
        },
      },
      {
        name: 'sim-2',
        url: 'https://127.0.0.1:6442',
        source: 'sim',
        health: 'draining',
        failingChecks: ['shutdown'],
        gitVersion: 'v1.36.0-dev',
        discovery: { state: 'ok', gvrs: ['/v1/pods', 'apps/v1/deployments'] },
      },
    ],
    routeTable: {
      rows: [
        { gvr: '/v1/pods', servers: ['sim-1', 'sim-2'] },
        { gvr: 'apps/v1/deployments', servers: ['sim-1', 'sim-2'] },
        { gvr: 'certificates.k8s.io/v1/clustertrustbundles', servers: ['sim-1'] },
        { gvr: 'recorded.example.com/v1/widgets', servers: ['sim-1'] },
      ],
      skewed: ['certificates.k8s.io/v1/clustertrustbundles', 'recorded.example.com/v1/widgets'],
    },
    counters: [
      { outcome: 'local', gvr: '/v1/pods', handling: 'sim-2', answeredBy: 'sim-2', count: 30 },
      { outcome: 'rerouted', gvr: 'certificates.k8s.io/v1/clustertrustbundles', handling: 'sim-2', answeredBy: 'sim-1', count: 10 },
      { outcome: 'notfound', gvr: 'recorded.example.com/v1/widgets', handling: 'sim-2', answeredBy: 'sim-2', count: 3 },
      { outcome: 'discovery-own', gvr: '', handling: 'sim-2', answeredBy: 'sim-2', count: 2 },
    ],
    events,
    ...overrides,
  };
}
