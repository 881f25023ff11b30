// A server's own peer-proxy counters, from its /metrics scrape (metrics/scrape.ts):
// apiserver_rerouted_request_total{code,group,version,resource},
// apiserver_peer_proxy_errors_total{type,group,version,resource} and
// apiserver_peer_discovery_sync_errors_total{type}. A counter family with no series is not printed at
// all by kube-apiserver, so in a scrape that was read "absent" means "nothing counted".
import type { OwnProxyMetrics, OwnProxySeries } from '../../contract/own-mvp.js';
import type { MetricFamilies } from './metrics/scrape.js';

export const OWN_PROXY_FAMILIES = {
  rerouted: 'apiserver_rerouted_request_total',
  proxyErrors: 'apiserver_peer_proxy_errors_total',
  discoverySyncErrors: 'apiserver_peer_discovery_sync_errors_total',
} as const;

export function ownProxyMetricsOf(families: MetricFamilies, readAt: number): OwnProxyMetrics {
  const seriesOf = (name: string): OwnProxySeries[] => (families.get(name) ?? []).map((s) => ({ labels: { ...s.labels }, value: s.value }));
  const rerouted = seriesOf(OWN_PROXY_FAMILIES.rerouted);
  const proxyErrors = seriesOf(OWN_PROXY_FAMILIES.proxyErrors);
  const discoverySyncErrors = seriesOf(OWN_PROXY_FAMILIES.discoverySyncErrors);
  const total = (xs: OwnProxySeries[]) => xs.reduce((n, s) => n + s.value, 0);
  return {
    state: 'exposed',
    readAt,
    rerouted,
    reroutedTotal: total(rerouted),
    proxyErrors,
    proxyErrorsTotal: total(proxyErrors),
    discoverySyncErrors,
    discoverySyncErrorsTotal: total(discoverySyncErrors),
  };
}

/** No series and no counts (null, never 0): what a server's counters are when they were not read or not exposed. */
export const NO_COUNTS = {
  rerouted: [],
  reroutedTotal: null,
  proxyErrors: [],
  proxyErrorsTotal: null,
  discoverySyncErrors: [],
  discoverySyncErrorsTotal: null,
} as const satisfies Omit<OwnProxyMetrics, 'state' | 'readAt' | 'error'>;
