// Micro-figure of the upgrade-impact usage count: what ClientUsage.record adds to each request, on
// events as the port records them (user agent and GVR strings fresh per request, then interned by the
// event ring), a third of them without credentials and the rest with one of five ~1,000-character
// bearer tokens. Measured in-process after warm-up rounds, median of the rest.
import { Telemetry } from '../proxy-core/engine/telemetry/telemetry.js';
import type { Figure } from './figure.js';

const AGENTS = [
  'kubectl/v1.36.0 (linux/amd64) kubernetes/5f3c9a1',
  'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:generic-garbage-collector',
];
const RESOURCES = ['configmaps', 'secrets', 'pods', 'events'];

export function usageFigures(): Figure[] {
  const telemetry = new Telemetry(10_000, { ownIdentity: 'kubernetes-admin' });
  const N = 100_000;
  // Copies, so each request brings its own strings as a parsed request does.
  const fresh = (s: string) => [...s].join('');
  const events = Array.from({ length: N }, (_, i) =>
    telemetry.record({
      at: Date.now(),
      userAgent: fresh(AGENTS[i % 2]!),
      method: 'GET',
      verb: 'list',
      path: `/api/v1/${RESOURCES[i % 4]}`,
      group: '',
      version: fresh('v1'),
      resource: fresh(RESOURCES[i % 4]!),
      subresource: '',
      namespace: 'default',
      handling: 's1',
      answeredBy: 's1',
      outcome: 'local',
      status: 200,
      latencyMs: 1,
      bytesIn: 0,
      bytesOut: 100,
    }),
  );
  const authorization = Array.from({ length: N }, (_, i) => (i % 3 === 0 ? undefined : fresh(`Bearer eyJ${'x'.repeat(990)}${i % 5}`)));
  const ns: number[] = [];
  for (let round = 0; round < 7; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) telemetry.usage.record(events[i]!, authorization[i], undefined);
    ns.push(Number(process.hrtime.bigint() - t0) / N);
  }
  const median = [...ns].sort((a, b) => a - b)[Math.floor(ns.length / 2)]!;
  return [{ name: 'upgrade-impact usage count per request, for information', value: median / 1000, unit: 'µs' }];
}
