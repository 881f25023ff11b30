// Each real apiserver's request counts and requested deprecated APIs in /.peerscope/metrics, as its own
// /metrics gave them at the last read, labelled with the server. A server whose /metrics was not read
// has a state series saying so and no count series: never a zero.
import type { ServerStatus } from '../../../contract/servers.js';
import type { RequestSeries } from '../../../contract/server-metrics.js';
import { labelSet } from '../../util/exposition.js';

function seriesLabels(server: string, r: Pick<RequestSeries, 'group' | 'version' | 'resource' | 'subresource'>): Record<string, string> {
  return { server, group: r.group, version: r.version, resource: r.resource, subresource: r.subresource };
}

export function serverMetricsExposition(statuses: readonly ServerStatus[]): string {
  const real = statuses.flatMap((s) => (s.apiserverMetrics ? [{ name: s.name, m: s.apiserverMetrics }] : []));
  if (real.length === 0) return '';
  const lines = [
    "# HELP peerscope_apiserver_metrics_read Whether each apiserver's /metrics was read for its request counts (1 on the state: read, forbidden, unreadable, not-read).",
    '# TYPE peerscope_apiserver_metrics_read gauge',
    ...real.map(({ name, m }) => `peerscope_apiserver_metrics_read{${labelSet({ server: name, state: m.state })}} 1`),
  ];
  const counter = (family: string, help: string, pick: (r: RequestSeries) => number) => {
    lines.push(`# HELP ${family} ${help}`, `# TYPE ${family} counter`);
    for (const { name, m } of real)
      for (const r of m.requests ?? []) lines.push(`${family}{${labelSet({ ...seriesLabels(name, r), verb: r.verb })}} ${pick(r)}`);
  };
  counter(
    'peerscope_apiserver_requests_total',
    "apiserver_request_total of each apiserver's own /metrics, summed per GVR and verb (a request for a GVR it does not serve is not in it).",
    (r) => r.requests,
  );
  counter('peerscope_apiserver_server_errors_total', 'The part of peerscope_apiserver_requests_total answered 5xx.', (r) => r.serverErrors);
  counter('peerscope_apiserver_not_found_total', 'The part of peerscope_apiserver_requests_total answered 404.', (r) => r.notFound);
  lines.push(
    "# HELP peerscope_apiserver_requested_deprecated_apis apiserver_requested_deprecated_apis of each apiserver's own /metrics: 1 for each deprecated API someone requested since it started.",
    '# TYPE peerscope_apiserver_requested_deprecated_apis gauge',
  );
  for (const { name, m } of real)
    for (const d of m.deprecatedApis ?? [])
      lines.push(
        `peerscope_apiserver_requested_deprecated_apis{${labelSet({ ...seriesLabels(name, d), removed_release: d.removedRelease })}} 1`,
      );
  return lines.join('\n') + '\n';
}
