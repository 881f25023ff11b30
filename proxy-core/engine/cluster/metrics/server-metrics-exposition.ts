// Each real apiserver's request counts and requested deprecated APIs in /.peerscope/metrics, as its own
// /metrics gave them at the last read, labelled with the server. A server whose /metrics was not read
// has a state series saying so and no count series: never a zero.
import type { Registry } from 'prom-client';
import type { ServerStatus } from '../../../contract/servers.js';
import type { RequestSeries } from '../../../contract/server-metrics.js';
import { registerFamily } from '../../util/exposition.js';

const GVR_LABELS = ['server', 'group', 'version', 'resource', 'subresource'] as const;

function gvrLabels(server: string, r: Pick<RequestSeries, 'group' | 'version' | 'resource' | 'subresource'>) {
  return { server, group: r.group, version: r.version, resource: r.resource, subresource: r.subresource };
}

/** Adds the families to the port's registry; each scrape reads `statuses()` as they are then. */
export function registerServerMetrics(registry: Registry, statuses: () => readonly ServerStatus[]): void {
  const real = () => statuses().flatMap((s) => (s.apiserverMetrics ? [{ name: s.name, m: s.apiserverMetrics }] : []));
  registerFamily(registry, {
    name: 'peerscope_apiserver_metrics_read',
    help: "Whether each apiserver's /metrics was read for its request counts (1 on the state: read, forbidden, unreadable, not-read).",
    type: 'gauge',
    labelNames: ['server', 'state'],
    serverLabels: ['server'],
    samples: () => real().map(({ name, m }) => ({ labels: { server: name, state: m.state }, value: 1 })),
  });
  const counter = (name: string, help: string, pick: (r: RequestSeries) => number) =>
    registerFamily(registry, {
      name,
      help,
      type: 'counter',
      labelNames: [...GVR_LABELS, 'verb'],
      serverLabels: ['server'],
      samples: () =>
        real().flatMap(({ name: server, m }) =>
          (m.requests ?? []).map((r) => ({ labels: { ...gvrLabels(server, r), verb: r.verb }, value: pick(r) })),
        ),
    });
  counter(
    'peerscope_apiserver_requests_total',
    "apiserver_request_total of each apiserver's own /metrics, summed per GVR and verb (a request for a GVR it does not serve is not in it).",
    (r) => r.requests,
  );
  counter('peerscope_apiserver_server_errors_total', 'The part of peerscope_apiserver_requests_total answered 5xx.', (r) => r.serverErrors);
  counter('peerscope_apiserver_not_found_total', 'The part of peerscope_apiserver_requests_total answered 404.', (r) => r.notFound);
  registerFamily(registry, {
    name: 'peerscope_apiserver_requested_deprecated_apis',
    help: "apiserver_requested_deprecated_apis of each apiserver's own /metrics: 1 for each deprecated API someone requested since it started.",
    type: 'gauge',
    labelNames: [...GVR_LABELS, 'removed_release'],
    serverLabels: ['server'],
    samples: () =>
      real().flatMap(({ name, m }) =>
        (m.deprecatedApis ?? []).map((d) => ({ labels: { ...gvrLabels(name, d), removed_release: d.removedRelease }, value: 1 })),
      ),
  });
}
