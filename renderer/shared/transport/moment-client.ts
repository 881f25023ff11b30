// A read-only CoreClient over a recorded moment (getStateAt's answer): the GVR matrix and Server
// health render it as they render the live core, the servers and route table being as they were then.
// Over a window (the moment then being its end), the impact report is the window's, read from the
// recording. What the recording does not answer at a moment (the routing stream, discovery views, the
// impact report of a single moment) is refused with a message saying so; anything that would change a
// cluster is refused too.
import type {
  CoreClient,
  CoreClientMethod,
  Overview,
  RecordedState,
  RecordingWindow,
  Settings,
  ShownRecording,
} from '../../../proxy-core/contract/index.js';
import { clientFromHandlers, coreClientMethods, routeOutcomes, type OutcomeTotals } from '../../../proxy-core/contract/index.js';
import { formatClock } from '../ui/format.js';
import { OfflineError } from './snapshot-client.js';

const CHANGES: Partial<Record<CoreClientMethod, string>> = {
  setDiscoveryMode: 'changing the discovery mode',
  setPolicy: 'changing the handling policy',
  startRollout: 'starting a rollout',
  pauseRollout: 'pausing a rollout',
  setTrafficRate: 'setting the traffic rate',
  cancelAuditRead: 'stopping the audit log read',
  takeSnapshot: 'taking a snapshot',
};

/**
 * `settings`: the port's settings to show where the recording has none for the moment (the live ones).
 * `live`: the live core, for reading and comparing snapshot files and for other moments.
 * `window`: the window chosen, when the moment is its end.
 * `recording`: the recording opened from a file the moment is of (none: the session's own recording).
 */
export function createMomentClient(
  state: RecordedState,
  options: { settings: Settings; live: CoreClient; window?: RecordingWindow | null; recording?: ShownRecording | undefined },
): CoreClient {
  const window = options.window ?? null;
  const clock = formatClock(state.at);
  const refuse = (message: string) => Promise.reject(new OfflineError(message));
  const totals = Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as OutcomeTotals;
  const overview: Overview = {
    ...options.settings,
    ...state.settings,
    listen: null,
    servers: state.servers,
    totals,
    lastSeq: 0,
    // A moment of a recording opened from a file is still that recording's.
    ...(options.recording ? { recording: options.recording } : {}),
  };
  const calls = clientFromHandlers(
    coreClientMethods,
    {
      getOverview: async () => structuredClone(overview),
      getRouteTable: async () => structuredClone(state.routeTable),
      getHealthHistory: async () => ({ servers: structuredClone(state.history) }),
      getEvents: async () => ({ events: [], lastSeq: 0 }),
      getClusterEvents: async () => ({ events: [], lastSeq: 0 }),
      getClusterGvrRates: async () => ({ seconds: 0, cells: [] }),
      readSnapshot: (args) => options.live.readSnapshot(args),
      compareSnapshots: (args) => options.live.compareSnapshots(args),
      getRecordingTimeline: () => options.live.getRecordingTimeline(),
      getStateAt: (args) => options.live.getStateAt(args),
      getImpactForWindow: (args) => options.live.getImpactForWindow(args),
      getFalse404sForWindow: (args) => options.live.getFalse404sForWindow(args),
      ...(window
        ? { getImpactReport: (args) => options.live.getImpactForWindow({ ...window, ...(args?.to ? { target: args.to } : {}) }) }
        : {}),
    },
    (method) =>
      CHANGES[method]
        ? refuse(`This is the recording at ${clock}: ${CHANGES[method]} is only possible live. Go back to live first.`)
        : refuse(`The recording at ${clock} has no data for ${method} yet: go back to live for it.`),
  );
  // A moment never changes: nothing is pushed.
  return { ...calls, subscribe: () => () => undefined };
}
