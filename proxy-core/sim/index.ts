// The simulated control plane: cluster of simulated kube-apiservers and the shared object store.
export { startSimCluster, type SimCluster, type SimClusterOptions } from './cluster.js';
export { SimApiServer, type SimApiServerOptions, type SimRequestRecord } from './apiserver/server.js';
export * from './store/index.js';
export type * from './types.js';
export { runRollout, RolloutController, RolloutAborted, type RolloutOptions, type RolloutStatus, type RolloutPhase } from './rollout.js';
export * from './traffic/index.js';
export { TOKEN_USER } from './apiserver/auth.js';
export { simAuditLogFile } from './apiserver/audit-log.js';
export { identityLeaseName } from './apiserver/identity.js';
