// A read-only CoreClient over a routing snapshot: the same screens that show the live cluster show a
// snapshot offline, with nothing re-computed here beyond reshaping the snapshot's own records into the
// contract's views. Anything that would change a cluster is refused with a message saying why; reading
// and comparing snapshot files still go to the live core (that is core logic, not the page's).
import type {
  ClusterEventsPage,
  ClusterGvrRates,
  CoreClient,
  CoreClientMethod,
  EventsPage,
  RoutingSnapshot,
} from '../../../proxy-core/contract/index.js';
import { clientFromHandlers, coreClientMethods, discoveryViewsOf, PeerscopeError } from '../../../proxy-core/contract/index.js';
import { historyOf, overviewOf, routeTableOf } from './snapshot-views.js';

/** A call the offline view cannot make (it would change a cluster, or needs one). */
export class OfflineError extends PeerscopeError {
  override readonly name = 'OfflineError';
  constructor(message: string) {
    super('PEERSCOPE_ERR_OFFLINE', message);
  }
}

export interface SnapshotCoreClient extends CoreClient {
  readonly snapshot: RoutingSnapshot;
  /** The file it was read from, or a label such as "live state at 10:02:03". */
  readonly label: string;
}

export { snapshotTotals, splitGvrKey } from './snapshot-views.js';

/** What each refused call would have done, for the message; any other method is named as called. */
const REFUSED: Partial<Record<CoreClientMethod, string>> = {
  setDiscoveryMode: 'changing the discovery mode',
  setPolicy: 'changing the handling policy',
  startRollout: 'starting a rollout',
  pauseRollout: 'pausing a rollout',
  setTrafficRate: 'setting the traffic rate',
  getRecordingTimeline: 'reading the session’s recording',
  getStateAt: 'reading the session’s recording at a moment',
  getImpactForWindow: 'reading the session’s recording over a window',
  getFalse404sForWindow: 'reading the session’s recording over a window',
};

export function createSnapshotClient(snapshot: RoutingSnapshot, options: { label: string; live?: CoreClient }): SnapshotCoreClient {
  const cluster = snapshot.cluster;
  const overview = overviewOf(snapshot);
  const routeTable = routeTableOf(snapshot);
  const history = historyOf(snapshot);

  const refuse = (what: string) =>
    Promise.reject(
      new OfflineError(`This is a snapshot, viewed offline: ${what} is only possible on the live cluster. Return to live first.`),
    );
  const live = <T>(call: (c: CoreClient) => Promise<T>): Promise<T> =>
    options.live ? call(options.live) : Promise.reject(new OfflineError('No live core is connected to read or compare snapshots.'));

  // Every method not answered here changes a cluster or needs one: refused, whatever it is.
  const calls = clientFromHandlers(
    coreClientMethods,
    {
      getOverview: async () => structuredClone(overview),
      getRouteTable: async () => structuredClone(routeTable),
      getEvents: async (args = {}): Promise<EventsPage> => {
        let events = snapshot.events;
        if (args.sinceSeq !== undefined) events = events.filter((e) => e.seq > args.sinceSeq!);
        if (args.limit !== undefined && events.length > args.limit) events = events.slice(-args.limit);
        return { events: [...events], lastSeq: overview.lastSeq };
      },
      getHealthHistory: async () => structuredClone(history),
      // As a live core without a cluster source answers: no events, no cells.
      getClusterEvents: async (args = {}): Promise<ClusterEventsPage> => {
        let events = cluster?.events ?? [];
        if (args.sinceSeq !== undefined) events = events.filter((e) => e.seq > args.sinceSeq!);
        if (args.limit !== undefined && events.length > args.limit) events = events.slice(-args.limit);
        return { events: [...events], lastSeq: cluster?.lastSeq ?? 0 };
      },
      getClusterGvrRates: async (): Promise<ClusterGvrRates> => structuredClone(cluster?.gvrRates ?? { seconds: 0, cells: [] }),
      // Recorded since the snapshot format had mergedDiscovery; an older file cannot show the comparison.
      getDiscoveryViews: async () => {
        if (!snapshot.mergedDiscovery)
          return refuse(
            'comparing the merged discovery document with each server’s own (this snapshot did not record the merged document)',
          );
        return discoveryViewsOf(
          snapshot.settings.discoveryMode,
          snapshot.mergedDiscovery,
          snapshot.servers.map((s) => ({
            name: s.name,
            discovery: s.discovery.state,
            ...(s.gitVersion !== undefined ? { gitVersion: s.gitVersion } : {}),
            gvrs: s.discovery.gvrs,
          })),
        );
      },
      takeSnapshot: async () => snapshot,
      readSnapshot: (args) => live((c) => c.readSnapshot(args)),
      compareSnapshots: (args) => live((c) => c.compareSnapshots(args)),
      // The report the port made when the snapshot was taken, against the release it chose then.
      getImpactReport: async (args = {}) => {
        if (!snapshot.impact)
          return refuse('the upgrade-impact report (this snapshot was taken before Peerscope recorded which clients call what)');
        if (args.to !== undefined && args.to !== snapshot.impact.target.release)
          return refuse(
            `a report against ${args.to} (this snapshot holds the one against ${snapshot.impact.target.release}; \`peerscope report --snapshot FILE --to ${args.to}\` makes another)`,
          );
        return structuredClone(snapshot.impact);
      },
    },
    (method) => refuse(REFUSED[method] ?? `calling ${method}`),
  );

  return {
    snapshot,
    label: options.label,
    ...calls,
    // A snapshot never changes: nothing is pushed.
    subscribe: () => () => undefined,
  };
}
