// A server's own peer-proxy counters, read from its /metrics (Prometheus text format):
// apiserver_rerouted_request_total{code,group,version,resource},
// apiserver_peer_proxy_errors_total{type,group,version,resource} and
// apiserver_peer_discovery_sync_errors_total{type}. Only these three families are parsed; a counter
// family with no series is not printed at all by kube-apiserver, so "absent" means "nothing counted".
import type { OwnProxyMetrics, OwnProxySeries } from '../../contract/own-mvp.js';
import { describeError } from './control-client.js';
import type { ServerReader } from './server-config.js';

const FAMILIES = {
  rerouted: 'apiserver_rerouted_request_total',
  proxyErrors: 'apiserver_peer_proxy_errors_total',
  discoverySyncErrors: 'apiserver_peer_discovery_sync_errors_total',
} as const;

/** One sample line: name{labels} value [timestamp]. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/g;

export function parseOwnProxyMetrics(text: string, readAt = Date.now()): OwnProxyMetrics {
  const series: Record<keyof typeof FAMILIES, OwnProxySeries[]> = { rerouted: [], proxyErrors: [], discoverySyncErrors: [] };
  const wanted = new Map<string, keyof typeof FAMILIES>(Object.entries(FAMILIES).map(([k, v]) => [v, k as keyof typeof FAMILIES]));
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_')) continue;
    const m = SAMPLE.exec(line.trim());
    const family = m && wanted.get(m[1] as string);
    if (!m || !family) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const value = Number(m[3]);
    if (Number.isFinite(value)) series[family].push({ labels, value });
  }
  const total = (xs: OwnProxySeries[]) => xs.reduce((n, s) => n + s.value, 0);
  return {
    state: 'exposed',
    readAt,
    rerouted: series.rerouted,
    reroutedTotal: total(series.rerouted),
    proxyErrors: series.proxyErrors,
    proxyErrorsTotal: total(series.proxyErrors),
    discoverySyncErrors: series.discoverySyncErrors,
    discoverySyncErrorsTotal: total(series.discoverySyncErrors),
  };
}

/** No series and no counts: what a server's counters are when they could not be read. */
export const NO_COUNTS = {
  rerouted: [],
  reroutedTotal: 0,
  proxyErrors: [],
  proxyErrorsTotal: 0,
  discoverySyncErrors: [],
  discoverySyncErrorsTotal: 0,
} as const satisfies Omit<OwnProxyMetrics, 'state' | 'readAt' | 'error'>;

export async function readOwnProxyMetrics(client: ServerReader): Promise<OwnProxyMetrics> {
  const readAt = Date.now();
  try {
    const res = await client.get('/metrics', { accept: 'text/plain;version=0.0.4' });
    if (res.status === 200) return parseOwnProxyMetrics(res.body, readAt);
    if (res.status === 401 || res.status === 403) {
      return {
        state: 'forbidden',
        readAt,
        error: `GET /metrics answered ${res.status}: the credentials may not read the server's metrics (RBAC: nonResourceURLs /metrics, verb get)`,
        ...NO_COUNTS,
      };
    }
    return { state: 'unreadable', readAt, error: `GET /metrics answered ${res.status}`, ...NO_COUNTS };
  } catch (err) {
    return { state: 'unreadable', readAt, error: describeError(err), ...NO_COUNTS };
  }
}
