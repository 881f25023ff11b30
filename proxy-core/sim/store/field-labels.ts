// The field labels kube-apiserver lets a fieldSelector name, per resource: metadata.name and
// metadata.namespace everywhere, and the few each resource's registry adds (kubectl describe lists
// an object's events by involvedObject.*, a node's pods by spec.nodeName).
import type { KubeObject } from './store.js';

type Getter = (obj: KubeObject) => string;

/** The string at `path` of an object ("" when absent), as a field label reads it. */
function at(...path: string[]): Getter {
  return (obj) => {
    let value: unknown = obj;
    for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return value === undefined || value === null ? '' : String(value);
  };
}

const COMMON: Record<string, Getter> = {
  'metadata.name': (obj) => obj.metadata.name,
  'metadata.namespace': (obj) => obj.metadata.namespace ?? '',
};

const BY_RESOURCE: Record<string, Record<string, Getter>> = {
  '/events': {
    'involvedObject.kind': at('involvedObject', 'kind'),
    'involvedObject.namespace': at('involvedObject', 'namespace'),
    'involvedObject.name': at('involvedObject', 'name'),
    'involvedObject.uid': at('involvedObject', 'uid'),
    'involvedObject.apiVersion': at('involvedObject', 'apiVersion'),
    'involvedObject.resourceVersion': at('involvedObject', 'resourceVersion'),
    'involvedObject.fieldPath': at('involvedObject', 'fieldPath'),
    reason: at('reason'),
    reportingComponent: at('reportingComponent'),
    source: at('source', 'component'),
    type: at('type'),
  },
  '/pods': {
    'spec.nodeName': at('spec', 'nodeName'),
    'spec.restartPolicy': at('spec', 'restartPolicy'),
    'spec.schedulerName': at('spec', 'schedulerName'),
    'spec.serviceAccountName': at('spec', 'serviceAccountName'),
    'spec.hostNetwork': (obj) => String(at('spec', 'hostNetwork')(obj) === 'true'),
    'status.phase': at('status', 'phase'),
    'status.podIP': at('status', 'podIP'),
    'status.nominatedNodeName': at('status', 'nominatedNodeName'),
  },
  '/secrets': { type: at('type') },
  '/namespaces': { 'status.phase': at('status', 'phase') },
  '/nodes': { 'spec.unschedulable': (obj) => String(at('spec', 'unschedulable')(obj) === 'true') },
  '/services': { 'spec.clusterIP': at('spec', 'clusterIP'), 'spec.type': at('spec', 'type') },
  '/replicationcontrollers': { 'status.replicas': at('status', 'replicas') },
  'apps/replicasets': { 'status.replicas': at('status', 'replicas') },
  'batch/jobs': { 'status.successful': at('status', 'succeeded') },
};

/** The getter of a field label on `group/resource`, or undefined where the real server refuses it. */
export function fieldLabel(groupResource: string | undefined, field: string): Getter | undefined {
  return COMMON[field] ?? (groupResource === undefined ? undefined : BY_RESOURCE[groupResource]?.[field]);
}
