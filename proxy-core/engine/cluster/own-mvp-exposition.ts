// Each apiserver's own Mixed Version Proxy in /.peerscope/metrics, beside Peerscope's own routing
// counters: its verdict, whether its peer-proxy counters could be read, and those counters as its
// /metrics gave them, labelled with the server. A server whose counters are not exposed (no peer
// proxy, RBAC, unreadable) has a state series saying so and no counter series: never a zero.
import type { Registry } from 'prom-client';
import type { ServerStatus } from '../../contract/servers.js';
import type { OwnMvp, OwnProxySeries } from '../../contract/own-mvp.js';
import { registerFamily } from '../util/exposition.js';

/**
 * The label names of a server's own counters, as kube-apiserver's /metrics gives them. A label a later
 * release adds is left out (its series summed over it): a family's label names are fixed.
 */
const OWN_LABELS = {
  rerouted: ['code', 'group', 'resource', 'version'],
  proxyErrors: ['group', 'resource', 'type', 'version'],
  discoverySyncErrors: ['type'],
} as const;

/** Adds the families to the port's registry; each scrape reads `statuses()` as they are then. */
export function registerOwnMvp(registry: Registry, statuses: () => readonly ServerStatus[]): void {
  const withMvp = () => statuses().flatMap((s) => (s.ownMvp ? [{ name: s.name, mvp: s.ownMvp }] : []));
  registerFamily(registry, {
    name: 'peerscope_apiserver_own_mvp',
    help: "Each apiserver's own Mixed Version Proxy as Peerscope tells it from outside (1 on the verdict it has: on, off, unknown).",
    type: 'gauge',
    labelNames: ['server', 'verdict'],
    serverLabels: ['server'],
    samples: () => withMvp().map(({ name, mvp }) => ({ labels: { server: name, verdict: mvp.verdict }, value: 1 })),
  });
  registerFamily(registry, {
    name: 'peerscope_apiserver_own_proxy_metrics',
    help: "Whether each apiserver's own peer-proxy counters were read from its /metrics (1 on the state: exposed, not-exposed, forbidden, unreadable, not-read).",
    type: 'gauge',
    labelNames: ['server', 'state'],
    serverLabels: ['server'],
    samples: () => withMvp().map(({ name, mvp }) => ({ labels: { server: name, state: mvp.metrics.state }, value: 1 })),
  });
  const family = (name: string, help: string, kind: keyof typeof OWN_LABELS) =>
    registerFamily<string>(registry, {
      name,
      help,
      type: 'counter',
      labelNames: ['server', ...OWN_LABELS[kind]],
      serverLabels: ['server'],
      samples: () =>
        withMvp().flatMap(({ name: server, mvp }) =>
          mvp.metrics.state === 'exposed' ? seriesOf(mvp, kind).map((x) => ({ labels: labelsOf(server, kind, x), value: x.value })) : [],
        ),
    });
  family(
    'peerscope_apiserver_rerouted_request_total',
    "apiserver_rerouted_request_total as each apiserver's own /metrics gives it: requests its own peer proxy sent to a peer.",
    'rerouted',
  );
  family(
    'peerscope_apiserver_peer_proxy_errors_total',
    "apiserver_peer_proxy_errors_total as each apiserver's own /metrics gives it.",
    'proxyErrors',
  );
  family(
    'peerscope_apiserver_peer_discovery_sync_errors_total',
    "apiserver_peer_discovery_sync_errors_total as each apiserver's own /metrics gives it.",
    'discoverySyncErrors',
  );
}

function labelsOf(server: string, kind: keyof typeof OWN_LABELS, x: OwnProxySeries): Record<string, string> {
  const labels: Record<string, string> = { server };
  for (const name of OWN_LABELS[kind]) if (x.labels[name] !== undefined) labels[name] = x.labels[name];
  return labels;
}

function seriesOf(mvp: OwnMvp, kind: keyof typeof OWN_LABELS): readonly OwnProxySeries[] {
  return mvp.metrics[kind];
}
