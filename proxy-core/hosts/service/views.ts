// The contract's read calls over a running core: the overview, the route table, the events, the
// health history and the discovery views, each in the contract's shape.
import type { CoreCalls, DiscoveryViews, GetEventsArgs, RouteTableView, Settings } from '../../contract/client.js';
import { discoveryViewsOf, getEventsArgsSchema } from '../../contract/client.js';
import type { ClusterSummary } from '../../contract/cluster.js';
import type { Core } from '../../engine/core.js';
import { mergedDiscoveryView } from '../../engine/discovery/merged-view.js';
import { gvrKey } from '../../engine/discovery/types.js';
import { formatPolicy } from '../../engine/proxy/policy.js';
import type { SimController } from './sim-controller.js';

export type ViewCalls = Pick<
  CoreCalls,
  'getOverview' | 'getRouteTable' | 'getEvents' | 'getClusterEvents' | 'getClusterGvrRates' | 'getHealthHistory' | 'getDiscoveryViews'
>;

/** The events after `sinceSeq`, the newest `limit` of them (oldest first, as kept). */
function pageOf<E extends { readonly seq: number }>(events: E[], args: GetEventsArgs): E[] {
  const { sinceSeq, limit } = getEventsArgsSchema.parse(args);
  let page = events;
  if (sinceSeq !== undefined) page = page.filter((e) => e.seq > sinceSeq);
  if (limit !== undefined && page.length > limit) page = page.slice(-limit);
  return page;
}

export function settingsOf(core: Core): Settings {
  return {
    policy: formatPolicy(core.policy()),
    discoveryMode: core.discoveryMode(),
    ...(core.faithful() ? { faithful: true } : {}),
  };
}

/** The read of audit log files and the webhook receiver, where the core has them (their progress for a host's bar). */
function clusterSummary(core: Core, cluster: NonNullable<Core['cluster']>): ClusterSummary {
  const read = core.auditRead();
  const webhook = core.auditWebhookUrl();
  const problems = core.auditProblems();
  return {
    ...cluster.summary(),
    ...(read ? { read } : {}),
    ...(problems ? { problems } : {}),
    ...(webhook ? { webhook: { url: webhook } } : {}),
  };
}

export function viewCalls(core: Core, sim: SimController | undefined): ViewCalls {
  return {
    async getOverview() {
      const listen = core.address();
      return {
        ...settingsOf(core),
        listen: listen ? { host: listen.host, port: listen.port, url: listen.url } : null,
        servers: core.serverStatuses(),
        totals: core.telemetry.totals(),
        lastSeq: core.telemetry.lastSeq,
        ...(sim ? { sim: sim.status() } : {}),
        ...(core.cluster ? { cluster: clusterSummary(core, core.cluster) } : {}),
      };
    },
    async getRouteTable(): Promise<RouteTableView> {
      const table = core.routes.table;
      return {
        generation: core.routes.generation,
        columns: core.serverStatuses().map((s) => ({
          name: s.name,
          health: s.health,
          discovery: s.discovery.state,
          ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
        })),
        rows: table.rows().map((r) => ({ group: r.gvr.group, version: r.gvr.version, resource: r.gvr.resource, servers: [...r.servers] })),
        skewedCount: table.skewed().length,
        missingRegistrations: core.servers.missingRegistrations(),
      };
    },
    async getEvents(args = {}) {
      return { events: pageOf(core.telemetry.recent(), args), lastSeq: core.telemetry.lastSeq };
    },
    async getClusterEvents(args = {}) {
      const cluster = core.cluster;
      return { events: cluster ? pageOf(cluster.recent(), args) : [], lastSeq: cluster?.lastSeq ?? 0 };
    },
    async getClusterGvrRates() {
      return core.cluster?.gvrRates(Date.now()) ?? { seconds: 0, cells: [] };
    },
    async getHealthHistory() {
      const cluster = core.cluster;
      return {
        servers: core.servers.names().map((name) => ({
          name,
          samples: core.servers.history(name),
          errors: core.telemetry.errorSeries(name),
          ...(cluster?.servers.includes(name) ? { cluster: cluster.minutes(name) } : {}),
        })),
      };
    },
    async getDiscoveryViews(): Promise<DiscoveryViews> {
      return discoveryViewsOf(
        core.discoveryMode(),
        mergedDiscoveryView(core),
        core.serverStatuses().map((s) => ({
          name: s.name,
          discovery: s.discovery.state,
          ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
          gvrs: (core.servers.discovery(s.name)?.gvrs ?? []).map(gvrKey).sort(),
        })),
      );
    },
  };
}
