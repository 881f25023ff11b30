// One GET of a real apiserver's /metrics, parsed once, and everything Peerscope reads from it: the
// server's own peer-proxy counters and its request counts and deprecated APIs. Both say the same
// thing when the read failed (RBAC, the network, a body that is not the text format).
import type { OwnProxyMetrics } from '../../../contract/own-mvp.js';
import type { ServerMetrics } from '../../../contract/server-metrics.js';
import { describeError } from '../server-reader.js';
import { NO_COUNTS, OWN_PROXY_FAMILIES, ownProxyMetricsOf } from '../own-proxy-metrics.js';
import type { ServerReader } from '../server-config.js';
import { REQUEST_FAMILIES, serverMetricsOf, unreadServerMetrics } from './request-metrics.js';
import { parseScrape } from './scrape.js';

export interface ServerMetricsRead {
  readonly ownProxy: OwnProxyMetrics;
  readonly server: ServerMetrics;
}

const WANTED = new Set<string>([...Object.values(OWN_PROXY_FAMILIES), ...Object.values(REQUEST_FAMILIES)]);

/** Parses a scrape's text; `previous` is the server's last read, for rates. Throws when the text is not the text format. */
export function metricsOfScrape(text: string, readAt: number, previous?: ServerMetrics): ServerMetricsRead {
  const families = parseScrape(text, WANTED);
  return { ownProxy: ownProxyMetricsOf(families, readAt), server: serverMetricsOf(families, readAt, previous) };
}

function failed(state: 'forbidden' | 'unreadable', readAt: number, error: string): ServerMetricsRead {
  return { ownProxy: { state, readAt, error, ...NO_COUNTS }, server: unreadServerMetrics(state, readAt, error) };
}

export async function readServerMetrics(reader: ServerReader, previous?: ServerMetrics): Promise<ServerMetricsRead> {
  const readAt = Date.now();
  let res: Awaited<ReturnType<ServerReader['get']>>;
  try {
    res = await reader.get('/metrics', { accept: 'text/plain;version=0.0.4' });
  } catch (err) {
    return failed('unreadable', readAt, describeError(err));
  }
  if (res.status === 401 || res.status === 403)
    return failed(
      'forbidden',
      readAt,
      `GET /metrics answered ${res.status}: the credentials may not read the server's metrics (RBAC: nonResourceURLs /metrics, verb get)`,
    );
  if (res.status !== 200) return failed('unreadable', readAt, `GET /metrics answered ${res.status}`);
  try {
    return metricsOfScrape(res.body, readAt, previous);
  } catch (err) {
    return failed('unreadable', readAt, `GET /metrics: not the Prometheus text format (${describeError(err)})`);
  }
}
