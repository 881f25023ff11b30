// Wire types of Kubernetes discovery, with the zod schemas that validate documents read from
// servers and files. Field names follow k8s.io/api/apidiscovery/v2 and meta/v1 exactly.
import { z } from 'zod';

/** Accept / Content-Type forms of discovery (client-go discovery_client.go). */
export const MEDIA = {
  v2Json: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  v2JsonNoPeer: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer',
  v2beta1Json: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  v2Protobuf: 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
} as const;

const groupVersionKind = z.object({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string(),
});

export const apiSubresourceDiscoverySchema = z.object({
  subresource: z.string().min(1),
  responseKind: groupVersionKind.optional(),
  acceptedTypes: z.array(groupVersionKind).optional(),
  verbs: z.array(z.string()),
});

export const apiResourceDiscoverySchema = z.object({
  resource: z.string().min(1),
  responseKind: groupVersionKind.optional(),
  scope: z.enum(['Cluster', 'Namespaced']),
  singularResource: z.string().optional(),
  verbs: z.array(z.string()),
  shortNames: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
  subresources: z.array(apiSubresourceDiscoverySchema).optional(),
});

export const apiVersionDiscoverySchema = z.object({
  version: z.string().min(1),
  resources: z.array(apiResourceDiscoverySchema).optional(),
  freshness: z.string().optional(),
});

export const apiGroupDiscoverySchema = z.object({
  metadata: z.object({ name: z.string().optional() }).passthrough().optional(),
  versions: z.array(apiVersionDiscoverySchema),
});

export const apiGroupDiscoveryListSchema = z.object({
  apiVersion: z.enum(['apidiscovery.k8s.io/v2', 'apidiscovery.k8s.io/v2beta1']),
  kind: z.literal('APIGroupDiscoveryList'),
  metadata: z.object({}).passthrough().optional(),
  items: z.array(apiGroupDiscoverySchema),
});

/** meta/v1 APIResourceList, the legacy per-group-version list (`/api/v1`, `/apis/G/V`). */
export const apiResourceListSchema = z.object({
  kind: z.literal('APIResourceList'),
  apiVersion: z.string().optional(),
  groupVersion: z.string().min(1),
  resources: z.array(
    z
      .object({
        name: z.string().min(1),
        singularName: z.string().optional(),
        namespaced: z.boolean(),
        group: z.string().optional(),
        version: z.string().optional(),
        kind: z.string(),
        verbs: z.array(z.string()),
        shortNames: z.array(z.string()).optional(),
        categories: z.array(z.string()).optional(),
      })
      .passthrough(),
  ),
});

export type GroupVersionKind = z.infer<typeof groupVersionKind>;
export type APISubresourceDiscovery = z.infer<typeof apiSubresourceDiscoverySchema>;
export type APIResourceDiscovery = z.infer<typeof apiResourceDiscoverySchema>;
export type APIVersionDiscovery = z.infer<typeof apiVersionDiscoverySchema>;
export type APIGroupDiscovery = z.infer<typeof apiGroupDiscoverySchema>;
export type APIGroupDiscoveryList = z.infer<typeof apiGroupDiscoveryListSchema>;
export type APIResourceList = z.infer<typeof apiResourceListSchema>;

/** A group/version/resource; core group is "". */
export interface GVR {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** Stable string key of a GVR: "group/version/resource" (core: "/v1/pods"). */
export function gvrKey(gvr: GVR): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

export function parseGvrKey(key: string): GVR {
  const [group = '', version = '', resource = ''] = key.split('/');
  return { group, version, resource };
}
