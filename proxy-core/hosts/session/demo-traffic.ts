// The demo's traffic: clients through the port, and the same clients straight to the servers (the
// cluster's own, which Peerscope sees only in the servers' audit logs), under one rate control.
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import { startTraffic, type SimCluster, type TrafficHandle, type TrafficResult } from '../../sim/index.js';

export interface DemoTraffic {
  /** Traffic through the port, and the rate control of both generators. */
  readonly traffic: TrafficHandle;
  readonly portTraffic: TrafficHandle;
  /** The cluster's own clients, sent straight to the servers as a load balancer spreads them. */
  readonly clusterTraffic: TrafficHandle;
}

export function startDemoTraffic(
  sim: SimCluster,
  portUrl: string,
  releases: readonly [from: ReleaseCatalog, to: ReleaseCatalog],
  rps: number,
  onResult: ((r: TrafficResult) => void) | undefined,
): DemoTraffic {
  const portTraffic = startTraffic({
    targets: [portUrl],
    rps,
    releases,
    ...(onResult ? { onResult } : {}),
  });
  // The same clients (the legacy operator among them) straight to the servers, round-robin: during the
  // rollout an upgraded server answers them 404 for what only its peers still serve — false 404s no
  // port sees, only the servers' audit logs.
  const clusterTraffic = startTraffic({
    targets: sim.servers.map((s) => s.info().url),
    rps,
    releases,
    seed: 2,
    ...(sim.ca ? { ca: sim.ca } : {}),
    ...(sim.token ? { token: sim.token } : {}),
  });
  const traffic: TrafficHandle = {
    ...portTraffic,
    setRate(rate) {
      portTraffic.setRate(rate);
      clusterTraffic.setRate(rate);
    },
  };
  return { traffic, portTraffic, clusterTraffic };
}
