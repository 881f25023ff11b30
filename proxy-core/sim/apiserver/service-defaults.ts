// What kube-apiserver fills in on a new Service that kubectl get prints: the type, a cluster IP from
// the service range (the next free one after the kubernetes Service's 10.96.0.1, where the real
// allocator picks at random), and each port's protocol and target port.
import type { KubeObject } from '../store/store.js';
import { isPlainObject } from './objects.js';

type Body = Record<string, unknown> & { metadata: Record<string, unknown> };

/** The default service range, 10.96.0.0/12, as kube-apiserver's --service-cluster-ip-range. */
const RANGE_START = (10 << 24) | (96 << 16);
const RANGE_SIZE = 1 << 20;

function ipText(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The first address of the range after .0 that no existing Service holds. */
function freeClusterIp(existing: readonly KubeObject[]): string {
  const taken = new Set(existing.map((s) => (isPlainObject(s.spec) ? s.spec.clusterIP : undefined)));
  for (let i = 1; i < RANGE_SIZE - 1; i++) {
    const ip = ipText(RANGE_START + i);
    if (!taken.has(ip)) return ip;
  }
  throw new Error('the simulated service range 10.96.0.0/12 is full');
}

function withPortDefaults(port: unknown): unknown {
  if (!isPlainObject(port)) return port;
  return { ...port, protocol: port.protocol ?? 'TCP', targetPort: port.targetPort ?? port.port };
}

export function withServiceDefaults(obj: Body, existing: readonly KubeObject[]): Body {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const type = typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP';
  const out: Record<string, unknown> = {
    sessionAffinity: 'None',
    ...spec,
    type,
    ...(Array.isArray(spec.ports) ? { ports: spec.ports.map(withPortDefaults) } : {}),
  };
  // ExternalName services have no cluster IP; "None" (headless) is kept as given.
  if (type !== 'ExternalName') {
    const clusterIP = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : freeClusterIp(existing);
    Object.assign(out, {
      clusterIP,
      clusterIPs: Array.isArray(spec.clusterIPs) && spec.clusterIPs.length ? spec.clusterIPs : [clusterIP],
      ipFamilies: spec.ipFamilies ?? ['IPv4'],
      ipFamilyPolicy: spec.ipFamilyPolicy ?? 'SingleStack',
      internalTrafficPolicy: spec.internalTrafficPolicy ?? 'Cluster',
    });
  }
  return { ...obj, spec: out };
}
