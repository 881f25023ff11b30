// Who the traffic generator's requests come from: each kind of request is sent by the client that
// makes it in a real cluster, under that client's user agent, so the port's per-client views (the
// upgrade-impact report) see several clients, as they would in a cluster. The user agents follow
// client-go's form "<program>/<version> (<os>/<arch>) kubernetes/<commit>[/<controller>]".
import type { ReleaseCatalog } from '../../engine/releases/index.js';
import { catalogEntries } from '../../engine/releases/index.js';

export interface TrafficClient {
  readonly userAgent: string;
  /** What it sends, for readers of the generator and of its tests. */
  readonly sends: string;
}

export const TRAFFIC_CLIENTS = {
  kubectl: {
    userAgent: 'kubectl/v1.36.0 (linux/amd64) kubernetes/5f3c9a1',
    sends: 'an operator’s kubectl: lists of any GVR, and gets, creates and deletes of objects',
  },
  namespaceController: {
    userAgent: 'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:namespace-controller',
    sends: 'the namespace controller’s sweep: a list of every namespaced GVR, one after another',
  },
  garbageCollector: {
    userAgent:
      'kube-controller-manager/v1.36.0 (linux/amd64) kubernetes/5f3c9a1/system:serviceaccount:kube-system:generic-garbage-collector',
    sends: 'reflectors: list, then watch from the list’s resourceVersion, of the watched GVRs',
  },
  /**
   * An operator built against an older client library that still lists and watches a version the
   * newest release in play no longer serves: the client an upgrade breaks, which operators ask the
   * upgrade-impact report to find. Present when the oldest release serves a GVR the newest does not.
   */
  legacyOperator: {
    userAgent: 'legacy-operator/v0.8.3 (linux/amd64) kubernetes/1a2b3c4/legacy-controller',
    sends: 'a reflector (list, then watch) of one GVR the newest release removed',
  },
} as const satisfies Record<string, TrafficClient>;

/**
 * The GVR the legacy operator watches: one the oldest release (the first given) serves and the newest
 * (the last) does not, that can be listed and watched; storage and networking APIs first, as the
 * out-of-tree controllers most likely to lag behind use them. Undefined when no such GVR exists.
 */
export function legacyOperatorGvr(releases: readonly ReleaseCatalog[]): string | undefined {
  const oldest = releases[0];
  const newest = releases.at(-1);
  if (!oldest || !newest || oldest === newest) return undefined;
  const kept = new Set([...catalogEntries(newest)].map((e) => `${e.group}/${e.version}/${e.resource.name}`));
  const removed = [...catalogEntries(oldest)]
    .filter((e) => e.resource.verbs.includes('list') && e.resource.verbs.includes('watch'))
    .map((e) => `${e.group}/${e.version}/${e.resource.name}`)
    .filter((k) => !kept.has(k));
  const rank = (k: string) => (k.startsWith('storage.k8s.io/') ? 0 : k.startsWith('networking.k8s.io/') ? 1 : 2);
  return removed.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))[0];
}
