export { startDemoSession, portKubeconfig, type DemoSession, type DemoSessionOptions } from './demo.js';
export {
  startClusterSession,
  prepareClusterSession,
  kubeconfigContextNames,
  type ClusterSession,
  type PreparedCluster,
  type ClusterSessionOptions,
} from './cluster.js';
export { createSwitchingService, type SwitchingService, type SwitchableSession } from './switching-service.js';
