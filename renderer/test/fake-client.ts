// A CoreClient of plain data for component tests: three apiservers mid-rollout (sim-1 at v1.37,
// sim-2 at v1.36, sim-3 at v1.36 and down), a route table with skew, and events pushed by hand.
import {
  clientFromHandlers,
  coreClientMethods,
  emptyClusterTotals,
  type ClusterEvent,
  type ClusterGvrRates,
  type ClusterTotals,
  type CompareSnapshotsArgs,
  type CoreCalls,
  type CoreClient,
  type CoreEvent,
  type DiscoveryViews,
  PeerscopeError,
  type GetImpactForWindowArgs,
  type GetImpactReportArgs,
  type HealthHistory,
  type ImpactReport,
  type OutcomeTotals,
  type Overview,
  type ServerStatus,
  type ReadSnapshotArgs,
  type RecordedState,
  type RecordingTimeline,
  type RouteTableView,
  type RoutingEvent,
  type RoutingSnapshot,
  type RecordingWindow,
  type Settings,
  type ShownRecording,
  type WindowFalse404s,
  type SimStatus,
  type SnapshotDiff,
  type SnapshotReadResult,
} from '../../proxy-core/contract/index.js';
import { sampleImpactReport } from './impact.js';

export function totals(partial: Partial<OutcomeTotals> = {}): OutcomeTotals {
  return {
    local: 0,
    rerouted: 0,
    notfound: 0,
    unavailable: 0,
    'discovery-merged': 0,
    'discovery-own': 0,
    'non-resource': 0,
    rejected: 0,
    ...partial,
  };
}

function server(name: string, gitVersion: string, health: ServerStatus['health'], gvrCount: number): ServerStatus {
  return {
    name,
    // A simulated server is shown by its given name, as the core names it.
    displayName: name,
    url: `https://127.0.0.1:${6440 + Number(name.slice(-1))}`,
    source: 'sim',
    health,
    failingChecks: health === 'draining' ? ['shutdown'] : [],
    gitVersion,
    latencyMs: 4.2,
    lastProbeAt: 1_700_000_000_000,
    discovery: { state: health === 'unreachable' ? 'stale' : 'ok', source: 'aggregated-v2', gvrCount },
  };
}

/** What the sample events of either source asked for: a list of every pod. */
const LIST_PODS = { verb: 'list', path: '/api/v1/pods', group: '', version: 'v1', resource: 'pods', subresource: '', namespace: '' };

export function routingEvent(seq: number, partial: Partial<RoutingEvent> = {}): RoutingEvent {
  return {
    seq,
    at: 1_700_000_000_000 + seq,
    userAgent: 'kubectl/v1.37.0 (linux/amd64)',
    method: 'GET',
    ...LIST_PODS,
    handling: 'sim-2',
    answeredBy: 'sim-2',
    outcome: 'local',
    status: 200,
    latencyMs: 3.1,
    bytesIn: 0,
    bytesOut: 120,
    ...partial,
  };
}

export function clusterEvent(seq: number, partial: Partial<ClusterEvent> = {}): ClusterEvent {
  return {
    seq,
    at: 1_700_000_000_000 + seq,
    server: 'sim-2',
    userAgent: 'legacy-operator/v0.8.3 (linux/amd64) kubernetes/1a2b3c4/legacy-controller',
    user: 'system:serviceaccount:legacy:operator',
    ...LIST_PODS,
    outcome: 'local',
    code: 200,
    latencyMs: 2.5,
    ...partial,
  };
}

/** Counts by cluster outcome of the events given. */
export function clusterTotalsOf(events: readonly ClusterEvent[]): ClusterTotals {
  const totals = emptyClusterTotals();
  for (const e of events) totals[e.outcome]++;
  return totals;
}

/**
 * Every method of the contract, refusing: the fake below answers the ones the screens call, so a new
 * method needs no edit here until a test needs an answer from it.
 */
const UnansweredCalls = class {
  constructor() {
    Object.assign(
      this,
      clientFromHandlers(coreClientMethods, {}, (method) => Promise.reject(new Error(`the fake client has no answer for ${method}`))),
    );
  }
} as unknown as new () => CoreCalls;

export class FakeCoreClient extends UnansweredCalls implements CoreClient {
  settings: Settings = { policy: 'round-robin', discoveryMode: 'peer-aggregated' };
  servers: ServerStatus[] = [
    server('sim-1', 'v1.37.0-dev', 'ready', 4),
    server('sim-2', 'v1.36.0-dev', 'ready', 3),
    server('sim-3', 'v1.36.0-dev', 'unreachable', 3),
  ];
  routeTable: RouteTableView = {
    generation: 1,
    columns: [
      { name: 'sim-1', gitVersion: 'v1.37.0-dev', health: 'ready', discovery: 'ok' },
      { name: 'sim-2', gitVersion: 'v1.36.0-dev', health: 'ready', discovery: 'ok' },
      { name: 'sim-3', gitVersion: 'v1.36.0-dev', health: 'unreachable', discovery: 'stale' },
    ],
    rows: [
      { group: '', version: 'v1', resource: 'pods', servers: ['sim-1', 'sim-2', 'sim-3'] },
      { group: 'apps', version: 'v1', resource: 'deployments', servers: ['sim-1', 'sim-2', 'sim-3'] },
      { group: 'certificates.k8s.io', version: 'v1alpha1', resource: 'clustertrustbundles', servers: ['sim-2', 'sim-3'] },
      { group: 'certificates.k8s.io', version: 'v1', resource: 'clustertrustbundles', servers: ['sim-1'] },
    ],
    skewedCount: 2,
  };
  events: RoutingEvent[] = [
    routingEvent(1),
    routingEvent(2, {
      outcome: 'notfound',
      status: 404,
      path: '/apis/certificates.k8s.io/v1/clustertrustbundles',
      group: 'certificates.k8s.io',
      resource: 'clustertrustbundles',
    }),
  ];
  history: HealthHistory = {
    servers: [
      {
        name: 'sim-1',
        samples: [
          { at: 1_000, health: 'ready', latencyMs: 3, gitVersion: 'v1.36.0-dev' },
          { at: 2_000, health: 'draining', latencyMs: 5, gitVersion: 'v1.36.0-dev' },
          { at: 3_000, health: 'unreachable', gitVersion: 'v1.36.0-dev' },
          { at: 4_000, health: 'ready', latencyMs: 4, gitVersion: 'v1.37.0-dev' },
        ],
        errors: [
          { at: 0, count: 2 },
          { at: 5_000, count: 7 },
        ],
      },
      { name: 'sim-2', samples: [{ at: 1_000, health: 'ready', latencyMs: 2, gitVersion: 'v1.36.0-dev' }] },
      { name: 'sim-3', samples: [] },
    ],
  };
  /** The cluster source (the servers' audit logs); undefined: the core follows none. */
  clusterEvents: ClusterEvent[] | undefined;
  sim: SimStatus | undefined = { rollout: { phase: 'idle', from: 'v1.36-dev', to: 'v1.37-dev', upgraded: [] }, trafficRps: 20 };
  /**
   * The session's recording: sim-1 went from v1.36.0-dev to v1.37.0-dev a minute in. Undefined: the
   * session records nothing (getStateAt and getRecordingTimeline refuse as the core does).
   */
  timeline: RecordingTimeline | undefined = {
    file: '/tmp/demo.peerscope-recording',
    startedAt: 1_700_000_000_000,
    endedAt: 1_700_000_120_000,
    servers: ['sim-1', 'sim-2', 'sim-3'].map((name) => ({
      name,
      changes: [
        { at: 1_700_000_000_000, kind: 'health' as const, value: 'ready' },
        { at: 1_700_000_000_000, kind: 'release' as const, value: 'v1.36.0-dev' },
        ...(name === 'sim-1' ? [{ at: 1_700_000_060_000, kind: 'release' as const, value: 'v1.37.0-dev' }] : []),
      ],
    })),
  };
  readonly calls: string[] = [];
  private readonly listeners = new Set<(e: CoreEvent) => void>();
  /** Set to make every call fail: with this message, or with this error (a PeerscopeError carries its code). */
  failWith: string | Error | undefined;

  private async answer<T>(name: string, value: () => T): Promise<T> {
    this.calls.push(name);
    if (this.failWith) throw typeof this.failWith === 'string' ? new Error(this.failWith) : this.failWith;
    return structuredClone(value());
  }

  /** A recording opened from a file is shown: the overview names it, has no port and no simulator. */
  recording: ShownRecording | undefined;
  override getOverview = (): Promise<Overview> => {
    return this.answer('getOverview', () => ({
      ...this.settings,
      listen: this.recording ? null : { host: '127.0.0.1', port: 8001, url: 'http://127.0.0.1:8001' },
      servers: this.servers,
      totals: totals({ local: 120, rerouted: 7, notfound: 1 }),
      lastSeq: 128,
      ...(this.sim && !this.recording ? { sim: this.sim } : {}),
      ...(this.recording ? { recording: this.recording } : {}),
      ...(this.clusterEvents
        ? {
            cluster: {
              servers: this.servers.map((s) => s.name),
              totals: clusterTotalsOf(this.clusterEvents),
              lastSeq: this.clusterEvents.at(-1)?.seq ?? 0,
            },
          }
        : {}),
    }));
  };
  /** What getClusterGvrRates answers (the GVR matrix's per-cell traffic). */
  clusterGvrRates: ClusterGvrRates = { seconds: 60, cells: [] };
  override getClusterGvrRates = () => {
    return this.answer('getClusterGvrRates', () => this.clusterGvrRates);
  };
  override getClusterEvents = () => {
    return this.answer('getClusterEvents', () => ({ events: this.clusterEvents ?? [], lastSeq: this.clusterEvents?.at(-1)?.seq ?? 0 }));
  };
  override getRouteTable = () => {
    return this.answer('getRouteTable', () => this.routeTable);
  };
  override getEvents = () => {
    return this.answer('getEvents', () => ({ events: this.events, lastSeq: this.events.at(-1)?.seq ?? 0 }));
  };
  override getHealthHistory = () => {
    return this.answer('getHealthHistory', () => this.history);
  };
  override getDiscoveryViews = (): Promise<DiscoveryViews> => {
    return this.answer('getDiscoveryViews', () => ({
      mode: this.settings.discoveryMode,
      merged: {
        handling: 'sim-1',
        gvrs: [
          '/v1/pods',
          'apps/v1/deployments',
          'certificates.k8s.io/v1/clustertrustbundles',
          'certificates.k8s.io/v1alpha1/clustertrustbundles',
        ],
        versionOrder: 'priority',
        groupVersions: { apps: ['v1'], 'certificates.k8s.io': ['v1', 'v1alpha1'] },
        ownGroupVersions: {
          'sim-1': { apps: ['v1'], 'certificates.k8s.io': ['v1'] },
          'sim-2': { apps: ['v1'], 'certificates.k8s.io': ['v1alpha1'] },
        },
      },
      servers: [
        {
          name: 'sim-1',
          discovery: 'ok',
          gitVersion: 'v1.37.0-dev',
          gvrs: ['/v1/pods', 'apps/v1/deployments', 'certificates.k8s.io/v1/clustertrustbundles'],
          onlyInMerged: ['certificates.k8s.io/v1alpha1/clustertrustbundles'],
          onlyInOwn: [],
          versionOrder: [],
        },
        {
          name: 'sim-2',
          discovery: 'ok',
          gitVersion: 'v1.36.0-dev',
          gvrs: ['/v1/pods', 'apps/v1/deployments', 'certificates.k8s.io/v1alpha1/clustertrustbundles'],
          onlyInMerged: ['certificates.k8s.io/v1/clustertrustbundles'],
          onlyInOwn: [],
          versionOrder: [{ group: 'certificates.k8s.io', own: ['v1alpha1'], merged: ['v1', 'v1alpha1'] }],
        },
      ],
    }));
  };
  override setDiscoveryMode = ({ mode }: { mode: Settings['discoveryMode'] }) => {
    return this.answer(`setDiscoveryMode:${mode}`, () => {
      this.settings = { ...this.settings, discoveryMode: mode };
      return this.settings;
    });
  };
  override setPolicy = ({ policy }: { policy: string }) => {
    return this.answer(`setPolicy:${policy}`, () => {
      this.settings = { ...this.settings, policy };
      return this.settings;
    });
  };
  /** What takeSnapshot answers; set it in tests that export or compare. */
  snapshot: RoutingSnapshot | undefined;
  override takeSnapshot = (): Promise<RoutingSnapshot> => {
    return this.answer('takeSnapshot', () => {
      if (!this.snapshot) throw new Error('no snapshot set on the fake client');
      return this.snapshot;
    });
  };
  /** takeSnapshotAt: `snapshot` taken at the moment, built from the recording (which leaves out the recent requests). */
  override takeSnapshotAt = ({ at }: { at: number }): Promise<RoutingSnapshot> => {
    return this.answer(`takeSnapshotAt:${at}`, () => {
      if (!this.snapshot) throw new Error('no snapshot set on the fake client');
      const takenAt = new Date(at).toISOString();
      const omitted = [{ part: 'events', reason: 'not recorded' }];
      return { ...this.snapshot, takenAt, events: [], recorded: { file: 'session.recording.sqlite', at: takenAt, omitted } };
    });
  };
  /** What readSnapshot answers per file name; files not listed are read as snapshots with JSON.parse. */
  readResults = new Map<string, SnapshotReadResult>();
  override readSnapshot = (args: ReadSnapshotArgs): Promise<SnapshotReadResult> => {
    return this.answer(
      `readSnapshot:${args.file}`,
      () => this.readResults.get(args.file) ?? { ok: true as const, snapshot: JSON.parse(args.text) as RoutingSnapshot },
    );
  };
  /** What compareSnapshots answers. */
  diff: SnapshotDiff = {
    servers: { added: [], removed: [], upgraded: [], healthChanged: [] },
    gvrs: [],
    skew: { became: [], resolved: [] },
    outcomeRates: [],
  };
  compared: CompareSnapshotsArgs[] = [];
  override compareSnapshots = (args: CompareSnapshotsArgs): Promise<SnapshotDiff> => {
    return this.answer('compareSnapshots', () => {
      this.compared.push(args);
      return this.diff;
    });
  };
  /** What getImpactReport answers, per target (the default target when none is asked for). */
  impact: (to: string) => ImpactReport = (to) => sampleImpactReport(to);
  override getImpactReport = (args: GetImpactReportArgs = {}): Promise<ImpactReport> => {
    return this.answer(`getImpactReport:${args.to ?? ''}`, () => this.impact(args.to ?? 'v1.37-dev'));
  };
  override getRecordingTimeline = (): Promise<RecordingTimeline | null> => {
    return this.answer('getRecordingTimeline', () => this.timeline ?? null);
  };
  /** Each server's release as the timeline has it at `at`; the route table then without skew. */
  override getStateAt = ({ at }: { at: number }): Promise<RecordedState> => {
    return this.answer(`getStateAt:${at}`, () => {
      const releaseAt = (name: string) =>
        this.recorded()
          .servers.find((s) => s.name === name)
          ?.changes.filter((c) => c.kind === 'release' && c.at <= at)
          .at(-1)?.value;
      const servers = this.servers.map((s) => ({ ...s, health: 'ready' as const, gitVersion: releaseAt(s.name) ?? '' }));
      const names = servers.map((s) => s.name);
      return {
        at,
        servers,
        routeTable: {
          generation: 1,
          columns: servers.map((s) => ({ name: s.name, health: s.health, discovery: 'ok' as const, gitVersion: s.gitVersion })),
          rows: this.routeTable.rows.map((r) => ({ ...r, servers: names })),
          skewedCount: 0,
        },
        settings: { policy: 'round-robin', discoveryMode: 'peer-aggregated' as const },
        history: servers.map((s) => ({ name: s.name, samples: [{ at, health: s.health, gitVersion: s.gitVersion }] })),
      };
    });
  };
  /** The recording's impact report over a window: the sample report, its window the one asked for. */
  override getImpactForWindow = ({ from, to, target }: GetImpactForWindowArgs): Promise<ImpactReport> => {
    return this.answer(`getImpactForWindow:${from}-${to}:${target ?? ''}`, () => {
      this.recorded();
      const report = this.impact(target ?? 'v1.37-dev');
      return { ...report, at: to, window: { since: from, until: to, minutes: Math.round((to - from) / 600) / 100 } };
    });
  };
  /** The window's false 404s: kubectl got 3 from sim-2 for apps/v1 deployments a minute after `from`. */
  override getFalse404sForWindow = ({ from, to }: RecordingWindow): Promise<WindowFalse404s> => {
    return this.answer(`getFalse404sForWindow:${from}-${to}`, () => {
      this.recorded();
      const row = { userAgent: 'kubectl/v1.36.0', user: 'admin', server: 'sim-2', group: 'apps', version: 'v1', resource: 'deployments' };
      return { from, to, rows: [{ ...row, count: 3, first: from + 60_000, last: from + 60_000 }] };
    });
  };
  private recorded(): RecordingTimeline {
    if (!this.timeline) throw new PeerscopeError('PEERSCOPE_ERR_NO_RECORDING', 'this session is not recorded');
    return this.timeline;
  }
  override startRollout = () => {
    return this.answer('startRollout', () => {
      this.sim = { ...this.sim!, rollout: { ...this.sim!.rollout, phase: 'running' } };
      return this.sim;
    });
  };
  override pauseRollout = () => {
    return this.answer('pauseRollout', () => this.sim!);
  };
  override setTrafficRate = ({ rps }: { rps: number }) => {
    return this.answer(`setTrafficRate:${rps}`, () => {
      this.sim = { ...this.sim!, trafficRps: rps };
      return this.sim;
    });
  };
  subscribe(listener: (e: CoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Pushes an event to every subscriber, as the transport would. */
  emit(event: CoreEvent): void {
    for (const l of this.listeners) l(event);
  }
  get subscriberCount(): number {
    return this.listeners.size;
  }
  /**
   * The servers as found on a real cluster: found by their identity leases, shown by the host names
   * the leases give (identity → host name); their identities, and so every key, stay as they were.
   */
  showHostNames(hostNames: Readonly<Record<string, string>>): void {
    this.servers = this.servers.map((s) => ({ ...s, source: 'lease', displayName: hostNames[s.name] ?? s.name }));
  }
}
