// Snapshot size and load time for a large cluster: 5 servers × 1,000 GVRs × 10,000 events.
import { SNAPSHOT_API_VERSION, type RoutingSnapshot } from '../proxy-core/contract/snapshot.js';
import { parseSnapshot, serializeSnapshot } from '../proxy-core/engine/snapshot/io.js';
import type { Figure } from './micro.js';

export function largeSnapshot(servers = 5, gvrs = 1_000, events = 10_000): RoutingSnapshot {
  const keys = Array.from({ length: gvrs }, (_, i) => `crd-${i}.example.com/v1/widgets`);
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'RoutingSnapshot',
    takenAt: new Date(0).toISOString(),
    source: { kind: 'sim', peerscopeVersion: '0.1.0' },
    settings: { discoveryMode: 'peer-aggregated', policy: 'round-robin' },
    servers: Array.from({ length: servers }, (_, s) => ({
      name: `apiserver-${s}`,
      url: `https://10.0.0.${s}:6443`,
      source: 'lease' as const,
      health: 'ready' as const,
      failingChecks: [],
      gitVersion: 'v1.37.0',
      discovery: { state: 'ok' as const, gvrs: keys.filter((_, i) => (i + s) % 7 !== 0) },
    })),
    routeTable: {
      rows: keys.map((gvr, i) => ({
        gvr,
        servers: Array.from({ length: servers }, (_, s) => `apiserver-${s}`).filter((_, s) => (i + s) % 7 !== 0),
      })),
      skewed: keys.slice(0, 700),
    },
    counters: keys.flatMap((gvr) => [{ outcome: 'local' as const, gvr, handling: 'apiserver-0', answeredBy: 'apiserver-0', count: 12 }]),
    events: Array.from({ length: events }, (_, i) => ({
      seq: i + 1,
      at: 1_700_000_000_000 + i,
      userAgent: 'kubectl/v1.32.4 (linux/amd64) kubernetes/abcdef',
      method: 'GET',
      verb: 'list',
      path: `/apis/crd-${i % gvrs}.example.com/v1/namespaces/default/widgets`,
      group: `crd-${i % gvrs}.example.com`,
      version: 'v1',
      resource: 'widgets',
      subresource: '',
      namespace: 'default',
      handling: 'apiserver-1',
      answeredBy: 'apiserver-2',
      outcome: 'rerouted' as const,
      status: 200,
      latencyMs: 1.234,
      bytesIn: 0,
      bytesOut: 4321,
    })),
  };
}

export function snapshotFigures(): Figure[] {
  const text = serializeSnapshot(largeSnapshot());
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    parseSnapshot(text, 'bench.json');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return [
    {
      name: 'snapshot size, 5 servers × 1,000 GVRs × 10,000 events',
      value: Buffer.byteLength(text) / 1024 / 1024,
      unit: 'MiB',
      target: 10,
    },
    { name: 'snapshot load (parse + validate), same file', value: times[2] as number, unit: 'ms', target: 1000 },
  ];
}
