// The hand-declared messages (protobuf-messages.ts, protobuf-workloads.ts) built into protobufjs
// types under the packages generated.proto names, and looked up by a body's apiVersion and kind.
import protobuf from 'protobufjs/light.js';
import {
  CORE_V1,
  INT_OR_STRING,
  META,
  QUANTITY,
  RESOURCE_V1,
  SCHEDULING_V1,
  SCHEDULING_V1BETA1,
  type Fields,
} from './protobuf-messages.js';
import { RBAC_V1 } from './protobuf-rbac.js';
import { APPS_V1, BATCH_V1, CORE_V1_WORKLOADS } from './protobuf-workloads.js';

interface Package {
  /** The apiVersion whose kinds live here; undefined for apimachinery's own packages. */
  readonly apiVersion: string | undefined;
  readonly path: string;
  readonly messages: Record<string, Fields>;
}

const PACKAGES: readonly Package[] = [
  { apiVersion: undefined, path: 'k8s.io.apimachinery.pkg.apis.meta.v1', messages: META },
  { apiVersion: undefined, path: 'k8s.io.apimachinery.pkg.api.resource', messages: QUANTITY },
  { apiVersion: undefined, path: 'k8s.io.apimachinery.pkg.util.intstr', messages: INT_OR_STRING },
  { apiVersion: 'v1', path: 'k8s.io.api.core.v1', messages: { ...CORE_V1, ...CORE_V1_WORKLOADS } },
  { apiVersion: 'apps/v1', path: 'k8s.io.api.apps.v1', messages: APPS_V1 },
  { apiVersion: 'batch/v1', path: 'k8s.io.api.batch.v1', messages: BATCH_V1 },
  { apiVersion: 'rbac.authorization.k8s.io/v1', path: 'k8s.io.api.rbac.v1', messages: RBAC_V1 },
  { apiVersion: 'scheduling.k8s.io/v1', path: 'k8s.io.api.scheduling.v1', messages: SCHEDULING_V1 },
  { apiVersion: 'scheduling.k8s.io/v1beta1', path: 'k8s.io.api.scheduling.v1beta1', messages: SCHEDULING_V1BETA1 },
  { apiVersion: 'resource.k8s.io/v1', path: 'k8s.io.api.resource.v1', messages: RESOURCE_V1 },
];

/** The kinds a client may send as protobuf: the messages that carry an object's metadata. */
const TOP_LEVEL = new Set([
  'Namespace',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Pod',
  'Service',
  'Deployment',
  'Job',
  'CronJob',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'PriorityClass',
  'PodGroup',
  'ResourceClaim',
  'DeviceTaintRule',
]);

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64']);

/** A field's type as protobufjs resolves it: a scalar, a message of its own package, or another package's by full name. */
function qualified(typeName: string, own: Package): string {
  if (SCALARS.has(typeName) || typeName in own.messages) return typeName;
  const home = PACKAGES.find((p) => typeName in p.messages);
  if (!home) throw new Error(`protobuf schema: ${own.path} names an undeclared message ${typeName}`);
  return `.${home.path}.${typeName}`;
}

/** Fields declared as Go pointers: their zero value is sent on purpose and kept. */
const pointers = new WeakSet<protobuf.FieldBase>();

export function isPointer(field: protobuf.FieldBase): boolean {
  return pointers.has(field);
}

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const pkg of PACKAGES) {
    const ns = root.define(pkg.path);
    for (const [name, fields] of Object.entries(pkg.messages)) {
      const type = new protobuf.Type(name);
      for (const [fieldName, f] of Object.entries(fields)) {
        const typeName = qualified(f.type, pkg);
        const field = f.keyType
          ? new protobuf.MapField(fieldName, f.id, f.keyType, typeName)
          : new protobuf.Field(fieldName, f.id, typeName, f.rule ?? 'optional');
        if (f.pointer) pointers.add(field);
        type.add(field);
      }
      ns.add(type);
    }
  }
  root.resolveAll();
  return root;
}

const root = buildRoot();

/** Messages whose JSON form is a single value (protobuf-body.ts reads them so). */
export const TIME_TYPE = '.k8s.io.apimachinery.pkg.apis.meta.v1.Time';
export const QUANTITY_TYPE = '.k8s.io.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING_TYPE = '.k8s.io.apimachinery.pkg.util.intstr.IntOrString';

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
