// The core's pushed events, once for every subscriber. Routing events (and the cluster source's) are
// batched: at 10,000 requests a second a browser gets ten small messages a second, each with exact
// counts by outcome and at most the newest `maxBatchEvents` events. Server and route-table changes come in bursts during
// a rollout step and are coalesced per window too; the simulator's changes and settings go at once.
import type { CoreEvent, OutcomeTotals } from '../../contract/client.js';
import { emptyClusterTotals, type ClusterEvent, type ClusterOutcome } from '../../contract/cluster.js';
import { routeOutcomes, type RouteOutcome, type RoutingEvent } from '../../contract/events.js';
import type { Core } from '../../engine/core.js';
import { EventBatch } from './event-batch.js';
import type { SimController } from './sim-controller.js';

export interface EventPublisher {
  emit(e: CoreEvent): void;
  subscribe(listener: (e: CoreEvent) => void): () => void;
  /** Stops the timers, leaves the core's emitters and drops every subscriber. */
  close(): void;
}

export function emptyTotals(): OutcomeTotals {
  return Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as OutcomeTotals;
}

export function publishCoreEvents(core: Core, sim: SimController | undefined, batchMs: number, maxBatchEvents: number): EventPublisher {
  const listeners = new Set<(e: CoreEvent) => void>();
  const emit = (e: CoreEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // One broken subscriber must not starve the others.
      }
    }
  };

  // Routing events, and the cluster source's when the core follows audit logs: gathered between
  // ticks, each sent as one batch.
  const routing = new EventBatch<RoutingEvent, RouteOutcome>(emptyTotals, maxBatchEvents);
  const clusterBatch = new EventBatch<ClusterEvent, ClusterOutcome>(emptyClusterTotals, maxBatchEvents);
  const onRouting = (e: RoutingEvent) => {
    if (listeners.size > 0) routing.add(e);
  };
  const onCluster = (e: ClusterEvent) => {
    if (listeners.size > 0) clusterBatch.add(e);
  };
  const flush = () => {
    const now = Date.now();
    const r = routing.take(now);
    if (r) emit({ type: 'routing', ...r, lastSeq: core.telemetry.lastSeq });
    const c = clusterBatch.take(now);
    if (c && core.cluster) emit({ type: 'cluster', ...c, lastSeq: core.cluster.lastSeq });
  };
  const unsubscribeTelemetry = core.telemetry.subscribe(onRouting);
  const unsubscribeCluster = core.cluster?.subscribe(onCluster);
  const timer = setInterval(flush, batchMs);
  timer.unref();

  let serversDirty = false;
  let tableDirty = false;
  const notifyTimer = setInterval(() => {
    if (serversDirty) emit({ type: 'servers', servers: core.serverStatuses() });
    if (tableDirty) emit({ type: 'route-table', generation: core.routes.generation, skewedCount: core.routes.table.skewed().length });
    serversDirty = tableDirty = false;
  }, batchMs);
  notifyTimer.unref();
  const onHealth = () => {
    serversDirty = true;
  };
  const onDiscovery = () => {
    serversDirty = tableDirty = true;
  };
  core.servers.on('health', onHealth);
  core.servers.on('discovery', onDiscovery);
  const unsubscribeSim = sim?.onChange(() => emit({ type: 'sim', sim: sim.status() }));

  return {
    emit,
    subscribe(listener) {
      // Events recorded while nobody listened are not a window's worth: start a fresh one.
      if (listeners.size === 0) {
        routing.restart(Date.now());
        clusterBatch.restart(Date.now());
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      clearInterval(timer);
      clearInterval(notifyTimer);
      unsubscribeTelemetry();
      unsubscribeCluster?.();
      unsubscribeSim?.();
      core.servers.off('health', onHealth);
      core.servers.off('discovery', onDiscovery);
      listeners.clear();
    },
  };
}
