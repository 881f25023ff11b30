// Judging a run of the traffic generator against a simulated control plane that rolled out under it
// (the rollout soak in the test suite, and the long soak of `npm run bench -- --soak-minutes N`),
// from the simulated servers' own state timeline and the shared store:
// - false 404: a 404 on a list, sweep or create for a GVR that a server in state `ready` served for
//   the request's whole life, widened by `slackMs` on both sides; `strict` drops the slack;
// - unjustified 503: a 503 while a ready server served the GVR (same widening);
// - lost writes: an acknowledged create missing from the store (or with another uid), or an
//   acknowledged delete still present; writes without a definite answer are `uncertain`, not judged;
// - duplicated writes: two acknowledged creates of one name, or a 409 on a create (of a generated name);
// - watches: what resuming from the last resourceVersion lost, checked against the store's history.
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import { catalogEntries } from '../../engine/releases/index.js';
import type { SimCluster } from '../cluster.js';
import type { ObjectStore } from '../store/store.js';
import type { TrafficResult, TrafficSummary } from './types.js';
import { lostWatchEvents, type StoreChange, type WatchCounts, type WatchLossReport } from './watch-log.js';

/** A time during which one server was in state `ready`, serving `release`. */
export interface ReadyInterval {
  readonly server: string;
  readonly release: ReleaseCatalog;
  readonly from: number;
  readonly to: number;
}

/** Follows every server's state: the intervals during which each was ready, with its release. */
export function followReadiness(sim: SimCluster): { intervals(): ReadyInterval[]; stop(): void } {
  const closed: ReadyInterval[] = [];
  const open = new Map<string, { release: ReleaseCatalog; from: number }>();
  for (const s of sim.servers) if (s.info().state === 'ready') open.set(s.name, { release: s.release(), from: 0 });
  const off = sim.onEvent((e) => {
    if (e.type !== 'server-state') return;
    const current = open.get(e.server);
    if (e.state === 'ready' && !current) open.set(e.server, { release: sim.server(e.server).release(), from: e.at });
    if (e.state !== 'ready' && current) {
      closed.push({ server: e.server, ...current, to: e.at });
      open.delete(e.server);
    }
  });
  return {
    intervals: () => [...closed, ...[...open].map(([server, i]) => ({ server, ...i, to: Infinity }))],
    stop: () => void off(),
  };
}

/** Records every change the store makes to the resources of `releases`, from now on. */
export function recordStoreChanges(store: ObjectStore, releases: readonly ReleaseCatalog[]): { changes: StoreChange[]; stop(): void } {
  const changes: StoreChange[] = [];
  const groupResources = [...new Set(releases.flatMap((r) => [...catalogEntries(r)].map((e) => `${e.group}/${e.resource.name}`)))];
  const from = store.currentResourceVersion();
  const watches = groupResources.map((gr) => {
    const [group = '', resource = ''] = gr.split('/');
    return store.watch({ group, resource }, {}, from, (e) =>
      changes.push({ groupResource: e.groupResource, namespace: e.namespace, resourceVersion: e.resourceVersion }),
    );
  });
  return { changes, stop: () => watches.forEach((w) => w.stop()) };
}

export interface Judgement {
  readonly requests: number;
  readonly falseNotFound: number;
  /** The same with no slack: a server was ready and served the GVR from the request's start to its answer. */
  readonly falseNotFoundStrict: number;
  /** Requests that got no HTTP answer (connection refused or cut). */
  readonly noAnswer: number;
  readonly all503: number;
  readonly unjustified503: number;
  readonly lostWrites: number;
  readonly uncertainWrites: number;
  readonly duplicateWrites: number;
  readonly watchEvents: number;
  readonly watches: WatchCounts;
  readonly watchLoss: WatchLossReport;
  readonly byStatus: Record<string, number>;
  readonly examples: string[];
}

export interface JudgeInput {
  readonly results: readonly TrafficResult[];
  readonly summary: TrafficSummary;
  readonly intervals: readonly ReadyInterval[];
  readonly store: ObjectStore;
  readonly changes: readonly StoreChange[];
  /** Slack for health probes and in-flight requests around a state change, ms. */
  readonly slackMs: number;
  /** false when a 503 is expected by design (a handling server pinned to one that goes down). */
  readonly judge503: boolean;
  /** What the port says about a request (its routing event), for the examples. */
  readonly explain?: (r: TrafficResult) => string | undefined;
}

const servedCache = new Map<ReleaseCatalog, Set<string>>();
export function serves(release: ReleaseCatalog, gvr: string): boolean {
  let set = servedCache.get(release);
  if (!set)
    servedCache.set(release, (set = new Set([...catalogEntries(release)].map((e) => `${e.group}/${e.version}/${e.resource.name}`))));
  return set.has(gvr);
}

export function judgeRun(input: JudgeInput): Judgement {
  const { results, summary, intervals, slackMs } = input;
  const examples: string[] = [];
  const servedThroughout = (r: TrafficResult, slack: number) =>
    intervals.some((i) => i.from + slack <= r.at - r.ms && r.at + slack <= i.to && serves(i.release, r.gvr));
  const collectionOrCreate = (r: TrafficResult) => r.kind === 'list' || r.kind === 'ns-sweep' || r.kind === 'create';
  const explain = (r: TrafficResult) => {
    const said = input.explain?.(r);
    return said ? ` (port: ${said})` : '';
  };

  const falseNotFound = results.filter((r) => r.status === 404 && collectionOrCreate(r) && servedThroughout(r, slackMs));
  for (const r of falseNotFound.slice(0, 3)) examples.push(`false 404 ${r.kind} ${r.gvr} via ${r.target}${explain(r)}`);
  const strict = results.filter((r) => r.status === 404 && collectionOrCreate(r) && servedThroughout(r, 0));
  for (const r of strict.slice(0, 3)) {
    const start = r.at - r.ms;
    const servers = intervals
      .filter((i) => i.from <= start && r.at <= i.to && serves(i.release, r.gvr))
      .map((i) => `${i.server} ready ${i.from === 0 ? 'since before the run' : `${Math.round(start - i.from)} ms before`}`);
    examples.push(`strict false 404 ${r.kind} ${r.gvr} (${Math.round(r.ms)} ms): ${servers.join(', ')}${explain(r)}`);
  }
  const all503 = results.filter((r) => r.status === 503);
  const unjustified503 = input.judge503 ? all503.filter((r) => servedThroughout(r, slackMs)) : [];
  for (const r of unjustified503.slice(0, 3)) examples.push(`unjustified 503 ${r.kind} ${r.gvr}${explain(r)}`);

  // Every acknowledged create that was not deleted is in the store, once, with the same uid.
  const deleted = new Set(summary.writes.filter((w) => w.op === 'delete').map((w) => w.name));
  const creates = summary.writes.filter((w) => w.op === 'create');
  const uncertain = new Set(summary.uncertain);
  let lostWrites = 0;
  for (const w of creates) {
    if (uncertain.has(w.name)) continue; // its delete got no definite answer: present or absent are both right
    const [group = '', , resource = ''] = w.gvr.split('/');
    const stored = input.store.get({ group, resource }, w.namespace, w.name);
    if (deleted.has(w.name) ? stored !== undefined : stored?.metadata.uid !== w.uid) {
      lostWrites++;
      if (lostWrites <= 3)
        examples.push(
          `write ${w.gvr} ${w.name} ${deleted.has(w.name) ? 'deleted but still stored' : `uid ${w.uid} but stored ${String(stored?.metadata.uid)}`}; its requests: ${results
            .filter((r) => r.path.includes(w.name))
            .map((r) => `${r.kind} ${r.status}`)
            .join(', ')}`,
        );
    }
  }
  // A 409 on the namespace the generator makes sure exists only says it already did.
  const duplicateWrites =
    creates.length -
    new Set(creates.map((w) => w.name)).size +
    results.filter((r) => r.kind === 'create' && r.status === 409 && r.gvr !== '/v1/namespaces').length;

  const watchLoss = lostWatchEvents(summary.watchSegments, input.changes);
  for (const l of watchLoss.lost.slice(0, 3))
    examples.push(
      `a resumed watch lost the change at resourceVersion ${l.resourceVersion} of ${l.gvr}${l.namespace ? ` in ${l.namespace}` : ''}`,
    );

  return {
    requests: results.length,
    falseNotFound: falseNotFound.length,
    falseNotFoundStrict: strict.length,
    noAnswer: results.filter((r) => r.status === 0).length,
    all503: all503.length,
    unjustified503: unjustified503.length,
    lostWrites,
    uncertainWrites: uncertain.size,
    duplicateWrites,
    watchEvents: summary.watchEvents,
    watches: summary.watches,
    watchLoss,
    byStatus: summary.byStatus,
    examples,
  };
}
