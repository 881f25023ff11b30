// The bodies the bench upstream serves, built once: a PodGroup of ~3 KB (scheduling.k8s.io/v1beta1,
// a GVR only the newer release serves, so round-robin reroutes about half the requests), a list of
// ~50 KB, a 2 KB object to create, and the watch stream. The objects are shaped like what a real
// apiserver returns: full metadata with managedFields, a pod template with containers, probes,
// volumes and tolerations, and a status.

export const GROUP = 'scheduling.k8s.io';
export const VERSION = 'v1beta1';
export const RESOURCE = 'podgroups';
export const NAMESPACE = 'bench';
export const COLLECTION = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${RESOURCE}`;

export const PATHS = {
  get: `${COLLECTION}/web-0`,
  list: `${COLLECTION}?limit=500`,
  post: COLLECTION,
  watch: `${COLLECTION}?watch=1&resourceVersion=1000&allowWatchBookmarks=true`,
} as const;

/** The release the bench GVR is missing from (the "old" apiserver). */
export const OLD_RELEASE = 'v1.36-dev';
/** The release that serves it (the "new" apiserver, the only one answering bench requests). */
export const NEW_RELEASE = 'v1.37-dev';

function hex(n: number, len: number): string {
  let s = '';
  let x = (n * 2654435761) >>> 0;
  while (s.length < len) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(16).padStart(8, '0');
  }
  return s.slice(0, len);
}

function uid(n: number): string {
  const h = hex(n + 17, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function container(name: string, image: string, port: number, envCount: number): Record<string, unknown> {
  return {
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--listen=:' + port, '--log-format=json', '--metrics-bind-address=:9090'],
    ports: [
      { name: 'http', containerPort: port, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    env: Array.from({ length: envCount }, (_, i) => ({ name: `FEATURE_FLAG_${i}`, value: i % 2 ? 'enabled' : 'disabled' })),
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
    readinessProbe: {
      httpGet: { path: '/readyz', port, scheme: 'HTTP' },
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: { path: '/livez', port, scheme: 'HTTP' },
      initialDelaySeconds: 15,
      periodSeconds: 20,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/web', readOnly: true },
      { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
  };
}

function template(envCount: number): Record<string, unknown> {
  return {
    metadata: { labels: { app: 'web', tier: 'frontend', 'app.kubernetes.io/part-of': 'shop' } },
    spec: {
      containers: [container('web', 'registry.example.com/shop/web:1.42.3', 8080, envCount)],
      volumes: [
        { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'web',
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
    },
  };
}

/** The object a client creates (no server-set fields). */
function createBody(envCount: number): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'PodGroup',
    metadata: {
      name: 'batch-new',
      namespace: NAMESPACE,
      labels: { app: 'batch', 'app.kubernetes.io/managed-by': 'bench' },
      annotations: { 'bench.peerscope.dev/purpose': 'create' },
    },
    spec: { minMember: 3, template: template(envCount) },
  };
}

/** A stored object as the apiserver returns it. */
export function storedObject(i: number, envCount: number): Record<string, unknown> {
  const created = new Date(Date.UTC(2026, 10, 1, 8, 0, i % 60)).toISOString().replace('.000', '');
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'PodGroup',
    metadata: {
      name: `web-${i}`,
      namespace: NAMESPACE,
      uid: uid(i),
      resourceVersion: String(1000 + i),
      generation: 1,
      creationTimestamp: created,
      labels: { app: 'web', tier: 'frontend', 'app.kubernetes.io/part-of': 'shop', 'pod-template-hash': hex(i, 10) },
      annotations: { 'deployment.kubernetes.io/revision': '7' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: uid(9_999), controller: true, blockOwnerDeletion: true },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: `${GROUP}/${VERSION}`,
          time: created,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} }, 'f:ownerReferences': {} },
            'f:spec': { 'f:minMember': {}, 'f:template': {} },
          },
        },
        {
          manager: 'kube-scheduler',
          operation: 'Update',
          apiVersion: `${GROUP}/${VERSION}`,
          time: created,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:scheduled': {} } },
          subresource: 'status',
        },
      ],
    },
    spec: { minMember: 3, template: template(envCount) },
    status: {
      phase: 'Running',
      scheduled: 3,
      running: 3,
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          lastTransitionTime: created,
          reason: 'AllMembersScheduled',
          message: 'all 3 members are scheduled',
        },
      ],
    },
  };
}

/** Smallest env list that makes `build(env)` at least `bytes` long. */
function sized(bytes: number, build: (env: number) => string): string {
  let env = 0;
  let s = build(env);
  while (s.length < bytes) s = build(++env);
  return s;
}

/** A compact object for watch events (~1 KB): what a controller sees on every status update. */
function watchObject(i: number): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'PodGroup',
    metadata: {
      name: `job-${i % 500}`,
      namespace: NAMESPACE,
      uid: uid(i % 500),
      resourceVersion: String(2000 + i),
      generation: 1 + (i % 3),
      creationTimestamp: '2026-11-01T08:00:00Z',
      labels: { app: 'batch', 'batch.kubernetes.io/job-name': `job-${i % 500}` },
    },
    spec: { minMember: 4, scheduleTimeoutSeconds: 60 },
    status: {
      phase: i % 4 === 0 ? 'Pending' : 'Running',
      scheduled: i % 5,
      running: i % 4,
      succeeded: 0,
      failed: 0,
      conditions: [
        {
          type: 'Scheduled',
          status: i % 4 === 0 ? 'False' : 'True',
          lastTransitionTime: '2026-11-01T08:00:05Z',
          reason: i % 4 === 0 ? 'Unschedulable' : 'AllMembersScheduled',
          message:
            i % 4 === 0
              ? '0/12 nodes are available: 12 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are available.'
              : 'all members are scheduled',
        },
      ],
    },
  };
}

export interface Bodies {
  /** GET one object, ~3 KB. */
  readonly object: Buffer;
  /** LIST, ~50 KB. */
  readonly list: Buffer;
  /** POST body, ~2 KB. */
  readonly create: Buffer;
}

export function buildBodies(): Bodies {
  const object = sized(3_000, (env) => JSON.stringify(storedObject(0, env)));
  const envForObject = (JSON.parse(object) as { spec: { template: { spec: { containers: { env: unknown[] }[] } } } }).spec.template.spec
    .containers[0]!.env.length;
  const items: unknown[] = [];
  let list = '';
  while (list.length < 50_000) {
    items.push(storedObject(items.length, envForObject));
    list = JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'PodGroupList', metadata: { resourceVersion: '1999' }, items });
  }
  const create = sized(2_000, (env) => JSON.stringify(createBody(env)));
  return { object: Buffer.from(object), list: Buffer.from(list), create: Buffer.from(create) };
}

/** `count` watch events, one JSON object per line, as kube-apiserver writes them. */
export function watchStream(count: number): Buffer {
  const parts: string[] = new Array<string>(count);
  for (let i = 0; i < count; i++) parts[i] = JSON.stringify({ type: i % 50 === 0 ? 'ADDED' : 'MODIFIED', object: watchObject(i) }) + '\n';
  return Buffer.from(parts.join(''));
}
