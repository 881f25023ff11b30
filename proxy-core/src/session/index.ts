export { startDemoSession, portKubeconfig, type DemoSession, type DemoSessionOptions } from './demo.js';
export {
  startClusterSession,
  prepareClusterSession,
  kubeconfigContextNames,
  type ClusterSession,
  type PreparedCluster,
  type ClusterSessionOptions,
} from './cluster.js';
export { createSwitchingClient, type SwitchingClient, type SwitchableSession } from './switching-client.js';
