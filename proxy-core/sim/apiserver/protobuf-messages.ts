// The protobuf messages of the kinds a client sends one at a time (kubectl's `create namespace|
// configmap|secret|serviceaccount|priorityclass`, the traffic generator's kinds) and of apimachinery,
// declared with only the fields these kinds need. Field numbers are those of k8s.io/api and
// k8s.io/apimachinery's generated.proto. Workloads (pods, deployments, services) are in
// protobuf-workloads.ts; protobuf-schema.ts builds them into protobufjs types.

/** `pointer`: a Go pointer field, whose zero value is a value (Go leaves a non-pointer's zero out of JSON). */
export type Fields = Record<string, { id: number; type: string; rule?: 'repeated'; keyType?: string; pointer?: true }>;

export const one = (id: number, type: string) => ({ id, type });
export const ptr = (id: number, type: string) => ({ id, type, pointer: true as const });
export const many = (id: number, type: string) => ({ id, type, rule: 'repeated' as const });
export const map = (id: number, type: string) => ({ id, type, keyType: 'string' });

export const META: Record<string, Fields> = {
  TypeMeta: { apiVersion: one(1, 'string'), kind: one(2, 'string') },
  Unknown: { typeMeta: one(1, 'TypeMeta'), raw: one(2, 'bytes'), contentEncoding: one(3, 'string'), contentType: one(4, 'string') },
  Time: { seconds: one(1, 'int64'), nanos: one(2, 'int32') },
  OwnerReference: {
    kind: one(1, 'string'),
    name: one(3, 'string'),
    uid: one(4, 'string'),
    apiVersion: one(5, 'string'),
    controller: ptr(6, 'bool'),
    blockOwnerDeletion: ptr(7, 'bool'),
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
    deletionGracePeriodSeconds: ptr(10, 'int64'),
    labels: map(11, 'string'),
    annotations: map(12, 'string'),
    ownerReferences: many(13, 'OwnerReference'),
    finalizers: many(14, 'string'),
  },
  LabelSelector: { matchLabels: map(1, 'string'), matchExpressions: many(2, 'LabelSelectorRequirement') },
  LabelSelectorRequirement: { key: one(1, 'string'), operator: one(2, 'string'), values: many(3, 'string') },
  Preconditions: { uid: one(1, 'string'), resourceVersion: one(2, 'string') },
  DeleteOptions: {
    gracePeriodSeconds: ptr(1, 'int64'),
    preconditions: one(2, 'Preconditions'),
    orphanDependents: ptr(3, 'bool'),
    propagationPolicy: ptr(4, 'string'),
    dryRun: many(5, 'string'),
  },
};

export const METADATA = { metadata: one(1, 'ObjectMeta') };

export const CORE_V1: Record<string, Fields> = {
  Namespace: { ...METADATA, spec: one(2, 'NamespaceSpec'), status: one(3, 'NamespaceStatus') },
  NamespaceSpec: { finalizers: many(1, 'string') },
  NamespaceStatus: { phase: one(1, 'string') },
  ConfigMap: { ...METADATA, data: map(2, 'string'), binaryData: map(3, 'bytes'), immutable: ptr(4, 'bool') },
  Secret: { ...METADATA, data: map(2, 'bytes'), type: one(3, 'string'), stringData: map(4, 'string'), immutable: ptr(5, 'bool') },
  ServiceAccount: {
    ...METADATA,
    secrets: many(2, 'ObjectReference'),
    imagePullSecrets: many(3, 'LocalObjectReference'),
    automountServiceAccountToken: ptr(4, 'bool'),
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

export const SCHEDULING_V1: Record<string, Fields> = {
  PriorityClass: {
    ...METADATA,
    value: one(2, 'int32'),
    globalDefault: one(3, 'bool'),
    description: one(4, 'string'),
    preemptionPolicy: ptr(5, 'string'),
  },
};

export const SCHEDULING_V1BETA1: Record<string, Fields> = {
  PodGroup: { ...METADATA, spec: one(2, 'PodGroupSpec') },
  PodGroupSpec: {
    parentCompositePodGroupName: one(1, 'string'),
    schedulingPolicy: one(3, 'PodGroupSchedulingPolicy'),
    priorityClassName: one(7, 'string'),
    priority: ptr(8, 'int32'),
    preemptionPolicy: ptr(9, 'string'),
  },
  PodGroupSchedulingPolicy: { basic: one(1, 'BasicSchedulingPolicy'), gang: one(2, 'GangSchedulingPolicy') },
  BasicSchedulingPolicy: {},
  GangSchedulingPolicy: { minCount: one(1, 'int32') },
};

export const RESOURCE_V1: Record<string, Fields> = {
  ResourceClaim: { ...METADATA, spec: one(2, 'ResourceClaimSpec') },
  ResourceClaimSpec: { devices: one(1, 'DeviceClaim') },
  DeviceClaim: { requests: many(1, 'DeviceRequest') },
  DeviceRequest: { name: one(1, 'string'), exactly: one(2, 'ExactDeviceRequest') },
  ExactDeviceRequest: {
    deviceClassName: one(1, 'string'),
    allocationMode: one(3, 'string'),
    count: one(4, 'int64'),
    adminAccess: ptr(5, 'bool'),
  },
  DeviceTaintRule: { ...METADATA, spec: one(2, 'DeviceTaintRuleSpec') },
  DeviceTaintRuleSpec: { deviceSelector: one(1, 'DeviceTaintSelector'), taint: one(2, 'DeviceTaint') },
  DeviceTaintSelector: { driver: one(2, 'string'), pool: one(3, 'string'), device: one(4, 'string') },
  DeviceTaint: { key: one(1, 'string'), value: one(2, 'string'), effect: one(3, 'string'), timeAdded: one(4, 'Time') },
};

/** apimachinery's scalar wrappers, read as the JSON value they stand for (protobuf-body.ts). */
export const QUANTITY: Record<string, Fields> = { Quantity: { string: one(1, 'string') } };
export const INT_OR_STRING: Record<string, Fields> = {
  IntOrString: { type: one(1, 'int64'), intVal: one(2, 'int32'), strVal: one(3, 'string') },
};
