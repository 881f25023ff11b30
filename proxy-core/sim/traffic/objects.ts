// The kinds the traffic generator creates and deletes, each with a minimal object a real apiserver
// would also accept (the simulated ones store any JSON). Namespaced and cluster-scoped kinds, and
// kinds that only v1.37 serves, so writes hit the skew too.

type SpecOf = (serial: number) => Record<string, unknown>;

const TEMPLATES: ReadonlyMap<string, SpecOf> = new Map<string, SpecOf>([
  ['/v1/configmaps', (n) => ({ data: { serial: String(n) } })],
  ['/v1/secrets', (n) => ({ type: 'Opaque', data: { serial: Buffer.from(String(n)).toString('base64') } })],
  ['scheduling.k8s.io/v1/priorityclasses', (n) => ({ value: 1000 + (n % 1000), globalDefault: false, description: 'peerscope traffic' })],
  ['scheduling.k8s.io/v1beta1/podgroups', () => ({ spec: { minMember: 1 } })],
  ['resource.k8s.io/v1/resourceclaims', () => ({ spec: { devices: { requests: [] } } })],
  ['resource.k8s.io/v1beta1/resourceclaims', () => ({ spec: { devices: { requests: [] } } })],
  [
    'resource.k8s.io/v1/devicetaintrules',
    () => ({ spec: { deviceSelector: { driver: 'gpu.example.com' }, taint: { key: 'peerscope.dev/traffic', effect: 'NoSchedule' } } }),
  ],
]);

/** GVR keys ("group/version/resource") the generator knows how to write. */
export function isWritable(gvrKey: string): boolean {
  return TEMPLATES.has(gvrKey);
}

export function objectFor(
  gvr: { group: string; version: string; kind: string; key: string; namespaced: boolean },
  name: string,
  namespace: string,
  serial: number,
): Record<string, unknown> {
  const spec = TEMPLATES.get(gvr.key)?.(serial) ?? {};
  return {
    apiVersion: gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version,
    kind: gvr.kind,
    metadata: { name, ...(gvr.namespaced ? { namespace } : {}), labels: { 'app.kubernetes.io/managed-by': 'peerscope-traffic' } },
    ...spec,
  };
}
