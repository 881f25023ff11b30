// The simulated cluster's kubeconfig: one cluster, context and user per server (the first current),
// with the cluster's CA inline and the credential the caller picks (the bearer token by default).
import { stringify as toYaml } from 'yaml';
import type { SimServer } from './types.js';

export function renderKubeconfig(servers: readonly SimServer[], ca: string | undefined, user: Record<string, unknown>): string {
  const caData = ca ? Buffer.from(ca).toString('base64') : undefined;
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: servers.map((s) => ({
      name: s.name,
      cluster: { server: s.info().url, ...(caData ? { 'certificate-authority-data': caData } : {}) },
    })),
    contexts: servers.map((s) => ({ name: s.name, context: { cluster: s.name, user: s.name, namespace: 'default' } })),
    users: servers.map((s) => ({ name: s.name, user })),
    'current-context': servers[0]?.name ?? '',
    preferences: {},
  });
}
