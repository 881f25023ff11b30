// The protobuf messages of RBAC's kinds, which `kubectl create role|clusterrole|rolebinding|
// clusterrolebinding` send; field numbers of k8s.io/api's rbac/v1 generated.proto.
import { METADATA, many, one, type Fields } from './protobuf-messages.js';

export const RBAC_V1: Record<string, Fields> = {
  Role: { ...METADATA, rules: many(2, 'PolicyRule') },
  ClusterRole: { ...METADATA, rules: many(2, 'PolicyRule'), aggregationRule: one(3, 'AggregationRule') },
  RoleBinding: { ...METADATA, subjects: many(2, 'Subject'), roleRef: one(3, 'RoleRef') },
  ClusterRoleBinding: { ...METADATA, subjects: many(2, 'Subject'), roleRef: one(3, 'RoleRef') },
  PolicyRule: {
    verbs: many(1, 'string'),
    apiGroups: many(2, 'string'),
    resources: many(3, 'string'),
    resourceNames: many(4, 'string'),
    nonResourceURLs: many(5, 'string'),
  },
  AggregationRule: { clusterRoleSelectors: many(1, 'LabelSelector') },
  Subject: { kind: one(1, 'string'), apiGroup: one(2, 'string'), name: one(3, 'string'), namespace: one(4, 'string') },
  RoleRef: { apiGroup: one(1, 'string'), kind: one(2, 'string'), name: one(3, 'string') },
};
