// The cluster's clients for the upgrade-impact report: each request the apiservers' audit logs
// recorded (the cluster source), counted per user agent and user × GVR × verb as the port counts its
// own, so the live report names every client of the cluster, not only the port's.
import type { ClusterEvent } from '../../contract/cluster.js';
import { ClientUsage } from '../telemetry/client-usage.js';

/** What this reads of the cluster source (telemetry/cluster-traffic.ts). */
export interface ClusterEvents {
  subscribe(listener: (e: ClusterEvent) => void): () => void;
}

/** A usage count fed by every cluster event from now on (bounded as the port's is). */
export function clusterClientUsage(cluster: ClusterEvents): ClientUsage {
  const usage = new ClientUsage();
  cluster.subscribe((e) => {
    // As the port counts: resource requests that were routed, not refused before routing.
    if (!e.resource || e.outcome === 'rejected') return;
    usage.recordAs({ ...e, status: e.code ?? 0 }, e.user || 'anonymous');
  });
  return usage;
}
