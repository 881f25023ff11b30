// The traffic generator: realistic clients at a bounded rate — controllers that list and then watch
// (including GVRs only the newer release serves) and resume from their last resourceVersion as
// client-go reflectors do, kubectl-like get / create / delete with unique names, and the
// namespace-deletion sweep that lists every namespaced GVR (the workflow a false 404 breaks), and an
// old operator that still watches a version the newest release removed. Each kind of request is sent
// under the user agent of the client that makes it in a cluster (traffic/clients.ts).
// Targets are used round-robin: one URL is Peerscope's port, several are the servers themselves as
// a load balancer would spread clients. Every request, watches and sweep steps included, takes a
// token from one bucket: the generator never exceeds its rate (plus a burst of a tenth of a second).
import { startDispatch } from './actions.js';
import { legacyOperatorGvr, TRAFFIC_CLIENTS } from './clients.js';
import { chooseWatched, unionGvrs } from './gvrs.js';
import { reflector } from './reflector.js';
import { TrafficRun } from './run.js';
import type { TrafficHandle, TrafficOptions, TrafficSummary } from './types.js';

export type { WatchCounts, WatchSegment } from './watch-log.js';
export { legacyOperatorGvr, TRAFFIC_CLIENTS, type TrafficClient } from './clients.js';
export type { AcknowledgedWrite, TrafficHandle, TrafficKind, TrafficOptions, TrafficResult, TrafficSummary } from './types.js';

export function startTraffic(options: TrafficOptions): TrafficHandle {
  if (options.targets.length === 0) throw new Error('traffic needs at least one target');
  const run = new TrafficRun(options);
  const { summary, bucket } = run;
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const gvrs = unionGvrs(options.releases);
  const listable = gvrs.filter((g) => g.verbs.has('list'));
  track(startDispatch(run, gvrs, options.maxInFlight ?? 32, track));
  for (const g of chooseWatched(listable, options.watches ?? 3)) track(reflector(run, g));
  const legacy = legacyOperatorGvr(options.releases);
  const legacyGvr = legacy === undefined ? undefined : listable.find((g) => g.key === legacy);
  if (legacyGvr) track(reflector(run, legacyGvr, TRAFFIC_CLIENTS.legacyOperator));

  const snapshot = (): TrafficSummary => ({
    ...summary,
    byStatus: { ...summary.byStatus },
    byKind: { ...summary.byKind },
    notFound: [...summary.notFound],
    writes: [...summary.writes],
    uncertain: [...summary.uncertain],
    watches: { ...summary.watches },
    watchSegments: summary.watchSegments.map((s) => ({ ...s, rvs: [...s.rvs] })),
  });
  let stopped: Promise<TrafficSummary> | undefined;
  const stop = (): Promise<TrafficSummary> => {
    stopped ??= (async () => {
      run.stopping = true;
      bucket.close();
      run.watchAbort.abort();
      const grace = setTimeout(() => run.requestAbort.abort(), options.stopGraceMs ?? 2000);
      while (pending.size > 0) await Promise.allSettled([...pending]);
      clearTimeout(grace);
      await run.agent.close();
      return snapshot();
    })();
    return stopped;
  };
  if (options.signal) {
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  }
  return {
    setRate(next) {
      bucket.setRate(Math.max(0, next));
    },
    summary: snapshot,
    stop,
  };
}
