// The core service: the contract's methods answered in-process over a Core, what the HTTP + SSE host
// and Electron's IPC serve (callers hold a CoreClient; this is the side that answers it).
// Each method reads or changes the core; pushed events are events.ts's (batched, coalesced).
import { PeerscopeError } from '../../contract/errors.js';
import type { CoreClient, DiscoveryViews, GetEventsArgs, RouteTableView, Settings, SimStatus } from '../../contract/client.js';
import { compareSnapshotsArgsSchema, discoveryViewsOf, getEventsArgsSchema, readSnapshotArgsSchema } from '../../contract/client.js';
import { getImpactReportArgsSchema } from '../../contract/impact.js';
import type { ClusterSummary } from '../../contract/cluster.js';
import type { Core } from '../../engine/core.js';
import { mergedDiscoveryView } from '../../engine/discovery/merged-view.js';
import { gvrKey } from '../../engine/discovery/types.js';
import { formatPolicy, parsePolicy } from '../../engine/proxy/policy.js';
import { impactReportOf } from '../../engine/impact/of-core.js';
import { diffSnapshots } from '../../engine/snapshot/diff.js';
import { readSnapshotText } from '../../engine/snapshot/io.js';
import { takeSnapshot } from '../../engine/snapshot/take.js';
import { publishCoreEvents } from './events.js';
import type { SimController } from './sim-controller.js';

export interface CoreServiceOptions {
  readonly sim?: SimController;
  /** Batch window for routing events (default 100 ms). */
  readonly batchMs?: number;
  /** Events kept per batch; the counts stay exact (default 500). */
  readonly maxBatchEvents?: number;
  readonly snapshotSource?: 'sim' | 'servers' | 'kubeconfig';
  /** The kubeconfig context snapshots say they were taken from. */
  readonly context?: string;
}

export interface CoreService extends CoreClient {
  /** Stops the batch timer and drops every subscriber. */
  close(): void;
}

/** The events after `sinceSeq`, the newest `limit` of them (oldest first, as kept). */
function pageOf<E extends { readonly seq: number }>(events: E[], args: GetEventsArgs): E[] {
  const { sinceSeq, limit } = getEventsArgsSchema.parse(args);
  let page = events;
  if (sinceSeq !== undefined) page = page.filter((e) => e.seq > sinceSeq);
  if (limit !== undefined && page.length > limit) page = page.slice(-limit);
  return page;
}

export function createCoreService(core: Core, options: CoreServiceOptions = {}): CoreService {
  const batchMs = options.batchMs ?? 100;
  const maxBatchEvents = options.maxBatchEvents ?? 500;
  const sim = options.sim;
  const events = publishCoreEvents(core, sim, batchMs, maxBatchEvents);
  const emit = events.emit;

  const settings = (): Settings => ({
    policy: formatPolicy(core.policy()),
    discoveryMode: core.discoveryMode(),
    ...(core.faithful() ? { faithful: true } : {}),
  });
  const requireSim = (): SimController => {
    if (!sim) throw new PeerscopeError('PEERSCOPE_ERR_NO_SIMULATOR', 'the core does not run on a simulated control plane');
    return sim;
  };

  // The read of audit log files and the webhook receiver, where the core has them (their progress for a host's bar).
  const clusterSummary = (cluster: NonNullable<Core['cluster']>): ClusterSummary => {
    const read = core.auditRead();
    const webhook = core.auditWebhookUrl();
    const problems = core.auditProblems();
    return {
      ...cluster.summary(),
      ...(read ? { read } : {}),
      ...(problems ? { problems } : {}),
      ...(webhook ? { webhook: { url: webhook } } : {}),
    };
  };

  const service: CoreService = {
    async getOverview() {
      const listen = core.address();
      return {
        ...settings(),
        listen: listen ? { host: listen.host, port: listen.port, url: listen.url } : null,
        servers: core.serverStatuses(),
        totals: core.telemetry.totals(),
        lastSeq: core.telemetry.lastSeq,
        ...(sim ? { sim: sim.status() } : {}),
        ...(core.cluster ? { cluster: clusterSummary(core.cluster) } : {}),
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
    async setDiscoveryMode({ mode }) {
      core.setDiscoveryMode(mode);
      const s = settings();
      emit({ type: 'settings', settings: s });
      return s;
    },
    async setPolicy(args) {
      const policy = parsePolicy(args.policy);
      if (policy.kind === 'pin' && !core.servers.names().includes(policy.server)) {
        throw new PeerscopeError(
          'PEERSCOPE_ERR_POLICY',
          `no server is named "${policy.server}"; servers: ${core.servers.names().join(', ')}`,
        );
      }
      core.setPolicy(policy);
      const s = settings();
      emit({ type: 'settings', settings: s });
      return s;
    },
    async takeSnapshot() {
      return takeSnapshot(core, {
        source: options.snapshotSource ?? (sim ? 'sim' : 'servers'),
        ...(options.context ? { context: options.context } : {}),
      });
    },
    async readSnapshot(args) {
      // Validated here too: an in-process caller (Electron's IPC, the CLI) gets the same checks.
      const { text, file, size } = readSnapshotArgsSchema.parse(args);
      return readSnapshotText(text, file, size);
    },
    async compareSnapshots(args) {
      const { before, after } = compareSnapshotsArgsSchema.parse(args);
      return diffSnapshots(before, after);
    },
    async cancelAuditRead() {
      await core.cancelAuditRead();
      return service.getOverview();
    },
    async getImpactReport(args = {}) {
      return impactReportOf(core, getImpactReportArgsSchema.parse(args).to);
    },
    async startRollout(): Promise<SimStatus> {
      return requireSim().startRollout();
    },
    async pauseRollout(): Promise<SimStatus> {
      return requireSim().pauseRollout();
    },
    async setTrafficRate({ rps }): Promise<SimStatus> {
      return requireSim().setTrafficRate(rps);
    },
    subscribe: (listener) => events.subscribe(listener),
    close: () => events.close(),
  };
  return service;
}
