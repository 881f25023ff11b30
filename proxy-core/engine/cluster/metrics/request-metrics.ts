// A server's request counts and the deprecated APIs requested of it, from its /metrics scrape:
// apiserver_request_total{verb,group,version,resource,subresource,scope,component,code,dry_run} and
// apiserver_requested_deprecated_apis{group,version,resource,subresource,removed_release} (a gauge
// kube-apiserver sets to 1 once a deprecated API is requested). Rates are measured against the
// previous read of the same server.
import type { DeprecatedApi, RequestSeries, ServerMetrics } from '../../../contract/server-metrics.js';
import type { MetricFamilies } from './scrape.js';

export const REQUEST_FAMILIES = {
  requests: 'apiserver_request_total',
  deprecatedApis: 'apiserver_requested_deprecated_apis',
} as const;

type Counts = Pick<RequestSeries, 'requests' | 'serverErrors' | 'notFound'>;

function seriesKey(s: Pick<RequestSeries, 'group' | 'version' | 'resource' | 'subresource' | 'verb'>): string {
  return [s.group, s.version, s.resource, s.subresource, s.verb].join('\u0000');
}

export function serverMetricsOf(families: MetricFamilies, readAt: number, previous?: ServerMetrics): ServerMetrics {
  // kube-apiserver counts every request, its own health checks included, so a scrape without the
  // family is a server that does not expose it (a stand-in, a simulated server): nothing was read.
  if (!families.has(REQUEST_FAMILIES.requests))
    return { ...unreadServerMetrics('read', readAt), error: `its /metrics has no ${REQUEST_FAMILIES.requests}` };
  const bySeries = new Map<string, Omit<RequestSeries, 'requestRate' | 'serverErrorRate' | 'notFoundRate'>>();
  for (const { labels: l, value } of families.get(REQUEST_FAMILIES.requests) ?? []) {
    const id = {
      group: l.group ?? '',
      version: l.version ?? '',
      resource: l.resource ?? '',
      subresource: l.subresource ?? '',
      verb: l.verb ?? '',
    };
    const key = seriesKey(id);
    const row = bySeries.get(key) ?? { ...id, requests: 0, serverErrors: 0, notFound: 0 };
    const code = l.code ?? '';
    row.requests += value;
    if (code.startsWith('5')) row.serverErrors += value;
    if (code === '404') row.notFound += value;
    bySeries.set(key, row);
  }
  const before = previous?.state === 'read' && previous.readAt !== undefined && previous.requests ? previous : undefined;
  const seconds = before ? (readAt - (before.readAt as number)) / 1000 : 0;
  const earlier = new Map((before?.requests ?? []).map((r) => [seriesKey(r), r] as const));
  const rate = (now: number, then: number | undefined): number | null => {
    // A counter that went down was reset (the server restarted): no rate across it.
    if (!before || seconds <= 0 || now < (then ?? 0)) return null;
    return (now - (then ?? 0)) / seconds;
  };
  const requests: RequestSeries[] = [...bySeries.values()]
    .map((r) => {
      const then: Partial<Counts> = earlier.get(seriesKey(r)) ?? {};
      return {
        ...r,
        requestRate: rate(r.requests, then.requests),
        serverErrorRate: rate(r.serverErrors, then.serverErrors),
        notFoundRate: rate(r.notFound, then.notFound),
      };
    })
    .sort((a, b) => b.requests - a.requests || seriesKey(a).localeCompare(seriesKey(b)));
  const deprecatedApis: DeprecatedApi[] = (families.get(REQUEST_FAMILIES.deprecatedApis) ?? [])
    .filter((s) => s.value > 0)
    .map(({ labels: l }) => ({
      group: l.group ?? '',
      version: l.version ?? '',
      resource: l.resource ?? '',
      subresource: l.subresource ?? '',
      removedRelease: l.removed_release ?? '',
    }));
  const sum = (pick: (r: RequestSeries) => number) => requests.reduce((n, r) => n + pick(r), 0);
  return {
    state: 'read',
    readAt,
    ...(before ? { previousReadAt: before.readAt } : {}),
    requests,
    requestsTotal: sum((r) => r.requests),
    serverErrorsTotal: sum((r) => r.serverErrors),
    notFoundTotal: sum((r) => r.notFound),
    deprecatedApis,
  };
}

/** Nothing counted because nothing was read (or the scrape had none of it): every count null. */
export function unreadServerMetrics(state: ServerMetrics['state'], readAt?: number, error?: string): ServerMetrics {
  return {
    state,
    ...(readAt !== undefined ? { readAt } : {}),
    ...(error ? { error } : {}),
    requests: null,
    requestsTotal: null,
    serverErrorsTotal: null,
    notFoundTotal: null,
    deprecatedApis: null,
  };
}
