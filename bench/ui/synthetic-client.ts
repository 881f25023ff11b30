// A CoreClient of synthetic data for the Chromium figures, served by the real UI server (HTTP + SSE)
// to the built renderer: a cluster of three apiservers whose route table has `rows` GVRs, and a feed of
// `eventsPerSecond` routing events pushed the way the core's service pushes them (one batch every
// `batchMs` with exact counts by outcome and at most the newest `maxBatchEvents` events; the same
// defaults as proxy-core/hosts/service/service.ts and events.ts).
import {
  clientFromHandlers,
  clusterOutcomes,
  coreClientMethods,
  emptyClusterTotals,
  routeOutcomes,
  type ClusterEvent,
  type ClusterOutcome,
  type CoreClient,
  type CoreEvent,
  type OutcomeTotals,
  type Overview,
  type ServerStatus,
  type RouteOutcome,
  type RouteTableView,
  type RoutingEvent,
} from '../../proxy-core/contract/index.js';

export interface SyntheticClientOptions {
  /** GVRs in the route table. */
  readonly rows: number;
  readonly batchMs?: number;
  readonly maxBatchEvents?: number;
  /**
   * A cluster source (the core following audit logs): the overview says so, and setClusterRate()
   * pushes cluster batches as the core's service does. Without it the UI shows the port only.
   */
  readonly cluster?: boolean;
}

export interface SyntheticClient extends CoreClient {
  /** Starts (or changes) the feed; 0 stops it. */
  setRate(eventsPerSecond: number): void;
  /** Events generated so far. */
  readonly generated: number;
  /** Starts (or changes) the cluster source's feed (needs `cluster`); 0 stops it. */
  setClusterRate(eventsPerSecond: number): void;
  /** Cluster events generated so far. */
  readonly clusterGenerated: number;
  close(): void;
}

const SERVERS = ['apiserver-0', 'apiserver-1', 'apiserver-2'];
/** The mix of outcomes in the feed (per 100 events). */
const MIX: [RouteOutcome, number][] = [
  ['local', 80],
  ['rerouted', 12],
  ['notfound', 5],
  ['unavailable', 3],
];

/** The cluster source's mix (per 100 events): what audit logs of a cluster mid-rollout hold. */
const CLUSTER_MIX: [ClusterOutcome, number][] = [
  ['local', 78],
  ['non-resource', 10],
  ['false-404', 6],
  ['notfound', 4],
  ['rerouted', 2],
];
/** Distinct clients of the cluster source: the false-404 tally grows a row per client, server and GVR. */
const CLUSTER_CLIENTS = 40;

function zero(): OutcomeTotals {
  return Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as OutcomeTotals;
}

/** 5 resources per CRD group; every tenth group served by one server only (skewed). */
export function syntheticRouteTable(rows: number): RouteTableView {
  const out: RouteTableView['rows'] = [];
  for (let i = 0; i < rows; i++) {
    const g = Math.floor(i / 5);
    const skewed = g % 10 === 0;
    out.push({
      group: `crd-${g}.bench.example.com`,
      version: 'v1',
      resource: `widgets${i % 5}`,
      servers: skewed ? [SERVERS[g % 3]!] : [...SERVERS],
    });
  }
  return {
    generation: 1,
    columns: SERVERS.map((name, i) => ({
      name,
      gitVersion: i === 0 ? 'v1.37.0' : 'v1.36.2',
      health: 'ready' as const,
      discovery: 'ok' as const,
    })),
    rows: out,
    skewedCount: out.filter((r) => r.servers.length < SERVERS.length).length,
  };
}

export function createSyntheticClient(options: SyntheticClientOptions): SyntheticClient {
  const batchMs = options.batchMs ?? 100;
  const maxBatchEvents = options.maxBatchEvents ?? 500;
  const table = syntheticRouteTable(options.rows);
  const listeners = new Set<(e: CoreEvent) => void>();
  const totals = zero();
  let seq = 0;
  let rate = 0;
  let carry = 0;
  const servers: ServerStatus[] = SERVERS.map((name, i) => ({
    name,
    url: `https://10.0.0.${i + 1}:6443`,
    source: 'flag',
    health: 'ready',
    failingChecks: [],
    gitVersion: i === 0 ? 'v1.37.0' : 'v1.36.2',
    latencyMs: 3,
    discovery: { state: 'ok', source: 'aggregated-v2', gvrCount: table.rows.filter((r) => r.servers.includes(name)).length },
  }));

  const event = (n: number, outcome: RouteOutcome, at: number): RoutingEvent => {
    const g = n % Math.max(1, Math.floor(options.rows / 5));
    const handling = SERVERS[n % 3]!;
    return {
      seq: n,
      at,
      userAgent: 'kube-controller-manager/v1.36.2 (linux/amd64) kubernetes/abcdef',
      method: 'GET',
      verb: 'list',
      path: `/apis/crd-${g}.bench.example.com/v1/namespaces/team-${n % 40}/widgets${n % 5}`,
      group: `crd-${g}.bench.example.com`,
      version: 'v1',
      resource: `widgets${n % 5}`,
      subresource: '',
      namespace: `team-${n % 40}`,
      handling,
      answeredBy: outcome === 'rerouted' ? SERVERS[(n + 1) % 3]! : outcome === 'unavailable' ? null : handling,
      outcome,
      status: outcome === 'notfound' ? 404 : outcome === 'unavailable' ? 503 : 200,
      latencyMs: 1 + (n % 17) / 4,
      bytesIn: 0,
      bytesOut: 2_048,
      ...(outcome === 'unavailable' ? { error: `${SERVERS[(n + 1) % 3]} is unreachable` } : {}),
    };
  };
  const outcomeOf = (n: number): RouteOutcome => {
    let k = n % 100;
    for (const [o, share] of MIX) {
      if (k < share) return o;
      k -= share;
    }
    return 'local';
  };

  const clusterOutcomeOf = (n: number): ClusterOutcome => {
    let k = (n * 7) % 100;
    for (const [o, share] of CLUSTER_MIX) {
      if (k < share) return o;
      k -= share;
    }
    return 'local';
  };
  const clusterEvent = (n: number, at: number): ClusterEvent => {
    const outcome = clusterOutcomeOf(n);
    const g = n % Math.max(1, Math.floor(options.rows / 5));
    const client = n % CLUSTER_CLIENTS;
    const nonResource = outcome === 'non-resource';
    return {
      seq: n,
      at,
      server: SERVERS[n % 3]!,
      userAgent: `operator-${client}/v1.${client % 7}.0 (linux/amd64) kubernetes/abcdef/controller-${client}`,
      user: `system:serviceaccount:team-${client}:operator`,
      verb: nonResource ? 'get' : 'list',
      path: nonResource ? '/version' : `/apis/crd-${g}.bench.example.com/v1/namespaces/team-${n % 40}/widgets${n % 5}`,
      group: nonResource ? '' : `crd-${g}.bench.example.com`,
      version: nonResource ? '' : 'v1',
      resource: nonResource ? '' : `widgets${n % 5}`,
      subresource: '',
      namespace: nonResource ? '' : `team-${n % 40}`,
      outcome,
      code: outcome === 'false-404' || outcome === 'notfound' ? 404 : 200,
      latencyMs: 1 + (n % 13) / 4,
    };
  };
  let clusterSeq = 0;
  let clusterRate = 0;
  let clusterCarry = 0;
  const clusterTotals = emptyClusterTotals();

  const timer = setInterval(() => {
    if (clusterRate > 0 && listeners.size > 0) pushCluster();
    if (rate <= 0 || listeners.size === 0) return;
    const exact = (rate * batchMs) / 1000 + carry;
    const count = Math.floor(exact);
    carry = exact - count;
    if (count === 0) return;
    const counts = zero();
    const now = Date.now();
    const first = seq + 1;
    seq += count;
    for (let n = first; n <= seq; n++) counts[outcomeOf(n)]++;
    const events: RoutingEvent[] = [];
    for (let n = Math.max(first, seq - maxBatchEvents + 1); n <= seq; n++)
      events.push(event(n, outcomeOf(n), now - (seq - n) * (batchMs / count)));
    for (const o of routeOutcomes) totals[o] += counts[o];
    const batch: CoreEvent = { type: 'routing', events, counts, count, windowMs: batchMs, lastSeq: seq };
    for (const l of listeners) l(batch);
  }, batchMs);
  timer.unref();

  function pushCluster(): void {
    const exact = (clusterRate * batchMs) / 1000 + clusterCarry;
    const count = Math.floor(exact);
    clusterCarry = exact - count;
    if (count === 0) return;
    const counts = emptyClusterTotals();
    const now = Date.now();
    const first = clusterSeq + 1;
    clusterSeq += count;
    for (let n = first; n <= clusterSeq; n++) counts[clusterOutcomeOf(n)]++;
    const events: ClusterEvent[] = [];
    for (let n = Math.max(first, clusterSeq - maxBatchEvents + 1); n <= clusterSeq; n++)
      events.push(clusterEvent(n, now - (clusterSeq - n) * (batchMs / count)));
    for (const o of clusterOutcomes) clusterTotals[o] += counts[o];
    const batch: CoreEvent = { type: 'cluster', events, counts, count, windowMs: batchMs, lastSeq: clusterSeq };
    for (const l of listeners) l(batch);
  }

  const overview = (): Overview => ({
    policy: 'round-robin',
    discoveryMode: 'peer-aggregated',
    listen: { host: '127.0.0.1', port: 8001, url: 'http://127.0.0.1:8001' },
    servers,
    totals: { ...totals },
    lastSeq: seq,
    ...(options.cluster ? { cluster: { servers: [...SERVERS], totals: { ...clusterTotals }, lastSeq: clusterSeq } } : {}),
  });

  return {
    get generated() {
      return seq;
    },
    setRate(eventsPerSecond) {
      rate = eventsPerSecond;
      carry = 0;
    },
    get clusterGenerated() {
      return clusterSeq;
    },
    setClusterRate(eventsPerSecond) {
      if (!options.cluster && eventsPerSecond > 0) throw new Error('the synthetic client was made without a cluster source');
      clusterRate = eventsPerSecond;
      clusterCarry = 0;
    },
    close() {
      clearInterval(timer);
      listeners.clear();
    },
    // Only the reads the screens make are answered; every other method is refused.
    ...clientFromHandlers(
      coreClientMethods,
      {
        getOverview: async () => overview(),
        getRouteTable: async () => table,
        getEvents: async (args = {}) => {
          const limit = Math.min(args.limit ?? 500, seq);
          const events: RoutingEvent[] = [];
          for (let n = seq - limit + 1; n <= seq; n++) if (n > (args.sinceSeq ?? 0)) events.push(event(n, outcomeOf(n), Date.now()));
          return { events, lastSeq: seq };
        },
        // The cluster source's recent events when there is one (empty otherwise: the feed under test is the port's).
        getClusterEvents: async (args = {}) => {
          const limit = Math.min(args.limit ?? 500, clusterSeq);
          const events: ClusterEvent[] = [];
          for (let n = clusterSeq - limit + 1; n <= clusterSeq; n++) if (n > (args.sinceSeq ?? 0)) events.push(clusterEvent(n, Date.now()));
          return { events, lastSeq: clusterSeq };
        },
        getClusterGvrRates: async () => ({ seconds: 0, cells: [] }),
        getHealthHistory: async () => ({
          servers: servers.map((s) => ({
            name: s.name,
            samples: [{ at: Date.now(), health: s.health, latencyMs: 3, gitVersion: s.gitVersion! }],
          })),
        }),
        getDiscoveryViews: async () => ({ mode: 'peer-aggregated', merged: { handling: SERVERS[0]!, gvrs: [] }, servers: [] }),
      },
      (method) => Promise.reject(new Error(`the bench client changes nothing and answers only reads (${method})`)),
    ),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
