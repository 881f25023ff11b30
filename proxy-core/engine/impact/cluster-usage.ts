// The cluster's clients for the upgrade-impact report: each request the apiservers' audit logs
// recorded (the cluster source), counted per user agent and user × GVR × verb as the port counts its
// own, so the live report names every client of the cluster, not only the port's.
import type { ClusterEvent } from '../../contract/cluster.js';
import { ClientUsage } from '../telemetry/client-usage.js';
import { deprecationWarning } from './of-audit.js';

/** What this reads of the cluster source (telemetry/cluster-traffic.ts). */
export interface ClusterEvents {
  subscribe(listener: (e: ClusterEvent) => void): () => void;
}

/** A usage count fed by every cluster event from now on (bounded as the port's is). */
export function clusterClientUsage(cluster: ClusterEvents): ClientUsage {
  const usage = new ClientUsage();
  cluster.subscribe((e) => recordClusterEvent(usage, e));
  return usage;
}

/**
 * The cluster's clients from the events a snapshot kept (`cluster.events`), for a snapshot that did
 * not record their usage itself (taken by an earlier Peerscope): only as many requests as it kept.
 */
export function clusterUsageOfEvents(events: readonly ClusterEvent[]): ClientUsage {
  const usage = new ClientUsage();
  for (const e of events) recordClusterEvent(usage, e);
  return usage;
}

/**
 * Requests in the servers' logs that are no client of the cluster: Peerscope's own reads (discovery,
 * leases, APIServices; user agent `peerscope`) and each apiserver's loopback requests to itself (user
 * system:apiserver: its identity lease, its own bookkeeping). An upgrade breaks neither, and counting
 * them would make a cluster nobody calls look used ("from the requests of 2 clients").
 */
export function isClusterClient(e: Pick<ClusterEvent, 'user' | 'userAgent'>): boolean {
  return e.user !== 'system:apiserver' && e.userAgent !== 'peerscope' && !e.userAgent.startsWith('peerscope/');
}

function recordClusterEvent(usage: ClientUsage, e: ClusterEvent): void {
  // As the port counts: resource requests that were routed, not refused before routing.
  if (!e.resource || e.outcome === 'rejected' || !isClusterClient(e)) return;
  // A request the server marked deprecated counts as the server's warning would, as `report --audit-log` counts it.
  const warnings = e.deprecated ? [deprecationWarning(e, e.deprecated.removedRelease)] : undefined;
  usage.recordAs({ ...e, status: e.code ?? 0 }, e.user || 'anonymous', warnings);
}
