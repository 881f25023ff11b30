// The legacy `/apis` (meta/v1 APIGroupList) of the whole server set, as one cluster would list it
// (rule P8): every group-version any server serves, in version priority (rule P9), so each group's
// preferred version is the newest version any server serves. Built from each server's aggregated document (its versions are in preference order, as
// kube-apiserver lists them), so a group whose APIService registration a server removed is still
// listed while some server serves it.
// Rule names (R…, D…, P…, §…) are those of docs/mixed-version-proxy-rules.md.
import { newestServerFirst } from '../util/release-order.js';
import { byVersionPriority } from '../../contract/version-priority.js';
import type { APIGroupDiscoveryList } from './types.js';

export interface ServerGroups {
  readonly server: string;
  /** The server's gitVersion ("v1.37.0-alpha.1"); undefined when its /version was never read. */
  readonly release: string | undefined;
  /** The server's own aggregated `/apis`. */
  readonly doc: APIGroupDiscoveryList;
}

export interface GroupVersionForDiscovery {
  readonly groupVersion: string;
  readonly version: string;
}

export interface APIGroup {
  readonly name: string;
  readonly versions: readonly GroupVersionForDiscovery[];
  readonly preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  readonly kind: 'APIGroupList';
  readonly apiVersion: 'v1';
  readonly groups: readonly APIGroup[];
}

/**
 * One APIGroupList over every server: groups in the newest server's order, then what only older
 * servers serve in theirs; each group's versions in version priority, the first preferred (P9).
 */
export function mergeLegacyGroupList(servers: readonly ServerGroups[]): APIGroupList {
  const groups = new Map<string, { versions: string[] }>();
  for (const { doc } of [...servers].sort(newestServerFirst)) {
    for (const g of doc.items) {
      const name = g.metadata?.name ?? '';
      if (name === '' || g.versions.length === 0) continue;
      let entry = groups.get(name);
      if (!entry) groups.set(name, (entry = { versions: [] }));
      for (const v of g.versions) if (!entry.versions.includes(v.version)) entry.versions.push(v.version);
    }
  }
  const out: APIGroup[] = [];
  for (const [name, { versions }] of groups) {
    const of = (version: string): GroupVersionForDiscovery => ({ groupVersion: `${name}/${version}`, version });
    const ordered = byVersionPriority(versions);
    out.push({ name, versions: ordered.map(of), preferredVersion: of(ordered[0]!) });
  }
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: out };
}
