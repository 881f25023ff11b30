// The protobuf messages the simulated apiserver reads: the runtime.Unknown envelope and the
// built-in kinds a client sends as protobuf (kubectl's `create namespace|configmap|secret|
// serviceaccount|priorityclass`, and the kinds the traffic generator writes). Declared by hand with
// only the fields these kinds need; field numbers are those of k8s.io/api and k8s.io/apimachinery's
// generated.proto. A body carrying a field not declared here is refused rather than read partly.
import protobuf from 'protobufjs/light.js';

type Fields = Record<string, { id: number; type: string; rule?: 'repeated'; keyType?: string }>;

const one = (id: number, type: string) => ({ id, type });
const many = (id: number, type: string) => ({ id, type, rule: 'repeated' as const });
const map = (id: number, type: string) => ({ id, type, keyType: 'string' });

const META: Record<string, Fields> = {
  TypeMeta: { apiVersion: one(1, 'string'), kind: one(2, 'string') },
  Unknown: { typeMeta: one(1, 'TypeMeta'), raw: one(2, 'bytes'), contentEncoding: one(3, 'string'), contentType: one(4, 'string') },
  Time: { seconds: one(1, 'int64'), nanos: one(2, 'int32') },
  OwnerReference: {
    kind: one(1, 'string'),
    name: one(3, 'string'),
    uid: one(4, 'string'),
    apiVersion: one(5, 'string'),
    controller: one(6, 'bool'),
    blockOwnerDeletion: one(7, 'bool'),
  },
  ObjectMeta: {
    name: one(1, 'string'),
    generateName: one(2, 'string'),
    namespace: one(3, 'string'),
    selfLink: one(4, 'string'),
    uid: one(5, 'string'),
    resourceVersion: one(6, 'string'),
    generation: one(7, 'int64'),
    creationTimestamp: one(8, 'Time'),
    deletionTimestamp: one(9, 'Time'),
    deletionGracePeriodSeconds: one(10, 'int64'),
    labels: map(11, 'string'),
    annotations: map(12, 'string'),
    ownerReferences: many(13, 'OwnerReference'),
    finalizers: many(14, 'string'),
  },
  Preconditions: { uid: one(1, 'string'), resourceVersion: one(2, 'string') },
  DeleteOptions: {
    gracePeriodSeconds: one(1, 'int64'),
    preconditions: one(2, 'Preconditions'),
    orphanDependents: one(3, 'bool'),
    propagationPolicy: one(4, 'string'),
    dryRun: many(5, 'string'),
  },
};

const METADATA = { metadata: one(1, 'ObjectMeta') };

const CORE_V1: Record<string, Fields> = {
  Namespace: { ...METADATA, spec: one(2, 'NamespaceSpec'), status: one(3, 'NamespaceStatus') },
  NamespaceSpec: { finalizers: many(1, 'string') },
  NamespaceStatus: { phase: one(1, 'string') },
  ConfigMap: { ...METADATA, data: map(2, 'string'), binaryData: map(3, 'bytes'), immutable: one(4, 'bool') },
  Secret: { ...METADATA, data: map(2, 'bytes'), type: one(3, 'string'), stringData: map(4, 'string'), immutable: one(5, 'bool') },
  ServiceAccount: {
    ...METADATA,
    secrets: many(2, 'ObjectReference'),
    imagePullSecrets: many(3, 'LocalObjectReference'),
    automountServiceAccountToken: one(4, 'bool'),
  },
  ObjectReference: {
    kind: one(1, 'string'),
    namespace: one(2, 'string'),
    name: one(3, 'string'),
    uid: one(4, 'string'),
    apiVersion: one(5, 'string'),
    resourceVersion: one(6, 'string'),
    fieldPath: one(7, 'string'),
  },
  LocalObjectReference: { name: one(1, 'string') },
};

const SCHEDULING_V1: Record<string, Fields> = {
  PriorityClass: {
    ...METADATA,
    value: one(2, 'int32'),
    globalDefault: one(3, 'bool'),
    description: one(4, 'string'),
    preemptionPolicy: one(5, 'string'),
  },
};

const SCHEDULING_V1BETA1: Record<string, Fields> = {
  PodGroup: { ...METADATA, spec: one(2, 'PodGroupSpec') },
  PodGroupSpec: {
    parentCompositePodGroupName: one(1, 'string'),
    schedulingPolicy: one(3, 'PodGroupSchedulingPolicy'),
    priorityClassName: one(7, 'string'),
    priority: one(8, 'int32'),
    preemptionPolicy: one(9, 'string'),
  },
  PodGroupSchedulingPolicy: { basic: one(1, 'BasicSchedulingPolicy'), gang: one(2, 'GangSchedulingPolicy') },
  BasicSchedulingPolicy: {},
  GangSchedulingPolicy: { minCount: one(1, 'int32') },
};

const RESOURCE_V1: Record<string, Fields> = {
  ResourceClaim: { ...METADATA, spec: one(2, 'ResourceClaimSpec') },
  ResourceClaimSpec: { devices: one(1, 'DeviceClaim') },
  DeviceClaim: { requests: many(1, 'DeviceRequest') },
  DeviceRequest: { name: one(1, 'string'), exactly: one(2, 'ExactDeviceRequest') },
  ExactDeviceRequest: {
    deviceClassName: one(1, 'string'),
    allocationMode: one(3, 'string'),
    count: one(4, 'int64'),
    adminAccess: one(5, 'bool'),
  },
  DeviceTaintRule: { ...METADATA, spec: one(2, 'DeviceTaintRuleSpec') },
  DeviceTaintRuleSpec: { deviceSelector: one(1, 'DeviceTaintSelector'), taint: one(2, 'DeviceTaint') },
  DeviceTaintSelector: { driver: one(2, 'string'), pool: one(3, 'string'), device: one(4, 'string') },
  DeviceTaint: { key: one(1, 'string'), value: one(2, 'string'), effect: one(3, 'string'), timeAdded: one(4, 'Time') },
};

/** Package of each apiVersion's messages, as generated.proto names them. */
const PACKAGES: ReadonlyArray<{ apiVersion: string | undefined; path: string; messages: Record<string, Fields> }> = [
  { apiVersion: undefined, path: 'k8s.io.apimachinery.pkg.apis.meta.v1', messages: META },
  { apiVersion: 'v1', path: 'k8s.io.api.core.v1', messages: CORE_V1 },
  { apiVersion: 'scheduling.k8s.io/v1', path: 'k8s.io.api.scheduling.v1', messages: SCHEDULING_V1 },
  { apiVersion: 'scheduling.k8s.io/v1beta1', path: 'k8s.io.api.scheduling.v1beta1', messages: SCHEDULING_V1BETA1 },
  { apiVersion: 'resource.k8s.io/v1', path: 'k8s.io.api.resource.v1', messages: RESOURCE_V1 },
];

/** The kinds a client may send as protobuf, by apiVersion: the messages that carry metadata. */
const TOP_LEVEL = new Set([
  'Namespace',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'PriorityClass',
  'PodGroup',
  'ResourceClaim',
  'DeviceTaintRule',
]);

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const pkg of PACKAGES) {
    const ns = root.define(pkg.path);
    for (const [name, fields] of Object.entries(pkg.messages)) {
      const type = new protobuf.Type(name);
      for (const [fieldName, f] of Object.entries(fields)) {
        // A type named in this package, else one of apimachinery's meta/v1 messages.
        const typeName = f.type in pkg.messages || !(f.type in META) ? f.type : `.k8s.io.apimachinery.pkg.apis.meta.v1.${f.type}`;
        type.add(
          f.keyType
            ? new protobuf.MapField(fieldName, f.id, f.keyType, typeName)
            : new protobuf.Field(fieldName, f.id, typeName, f.rule ?? 'optional'),
        );
      }
      ns.add(type);
    }
  }
  root.resolveAll();
  return root;
}

const root = buildRoot();

export const TIME_TYPE = '.k8s.io.apimachinery.pkg.apis.meta.v1.Time';

export function metaMessage(name: 'Unknown' | 'DeleteOptions'): protobuf.Type {
  return root.lookupType(`k8s.io.apimachinery.pkg.apis.meta.v1.${name}`);
}

/** The message of a kind sent as protobuf, or undefined when the simulator does not declare it. */
export function objectMessage(apiVersion: string, kind: string): protobuf.Type | undefined {
  if (!TOP_LEVEL.has(kind)) return undefined;
  const pkg = PACKAGES.find((p) => p.apiVersion === apiVersion);
  if (!pkg || !(kind in pkg.messages)) return undefined;
  return root.lookupType(`${pkg.path}.${kind}`);
}

/** "v1 ConfigMap, …": what the simulator reads as protobuf, for the error that refuses the rest. */
export function readableKinds(): string {
  return PACKAGES.flatMap((p) =>
    Object.keys(p.messages)
      .filter((k) => TOP_LEVEL.has(k))
      .map((k) => `${p.apiVersion} ${k}`),
  ).join(', ');
}
