// The merged discovery document as the Discovery screen and a snapshot see it: its GVRs, and the
// order of each group's versions in it and in each server's own document (rule P9: the port lists
// them in version priority unless --faithful, so a client may pick another version than straight
// to a server). Shared by the live core and a snapshot viewed offline.
import { z } from 'zod';
import { discoveryModeSchema } from './settings.js';

/** group ("" for core) → its versions, in a document's order. */
export const groupVersionOrderSchema = z.record(z.string(), z.array(z.string()));
export type GroupVersionOrder = z.infer<typeof groupVersionOrderSchema>;

export const mergedDiscoveryViewSchema = z.object({
  handling: z.string().nullable(),
  /** "group/version/resource" of the merged document (with the handling server's /api), sorted. */
  gvrs: z.array(z.string()),
  /**
   * How the port orders each group's versions in its merged documents: 'priority' (P9, the default)
   * or 'as-served' (D2's order, `--faithful`). Absent in snapshots of earlier Peerscope versions.
   */
  versionOrder: z.enum(['priority', 'as-served']).optional(),
  /** Each group's versions in the merged /apis. */
  groupVersions: groupVersionOrderSchema.optional(),
  /** Per server: each group's versions in its own /apis. */
  ownGroupVersions: z.record(z.string(), groupVersionOrderSchema).optional(),
});
export type MergedDiscoveryView = z.infer<typeof mergedDiscoveryViewSchema>;

export const versionOrderDifferenceSchema = z.object({
  group: z.string(),
  own: z.array(z.string()),
  merged: z.array(z.string()),
});
export type VersionOrderDifference = z.infer<typeof versionOrderDifferenceSchema>;

/**
 * The groups whose merged version list does not start with the server's own list: there, the merged
 * document puts another server's version, or its own in another order, before one of its own, and a
 * client that takes the first version serving a resource may pick another than straight to it.
 */
export function versionOrderDifferences(
  own: GroupVersionOrder | undefined,
  merged: GroupVersionOrder | undefined,
): VersionOrderDifference[] {
  if (!own || !merged) return [];
  const out: VersionOrderDifference[] = [];
  for (const [group, versions] of Object.entries(own)) {
    const m = merged[group];
    if (m && !versions.every((v, i) => m[i] === v)) out.push({ group, own: versions, merged: m });
  }
  return out.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/** "group/version/resource", core group empty ("/v1/pods"). */
export const gvrKeySchema = z.string();

export const discoveryViewsSchema = z.object({
  mode: discoveryModeSchema,
  /** The peer-aggregated document (/api of the handling server + merged /apis) as `handling` answers it. */
  merged: mergedDiscoveryViewSchema,
  servers: z.array(
    z.object({
      name: z.string(),
      discovery: z.enum(['ok', 'stale', 'none']),
      gitVersion: z.string().optional(),
      /** The server's own (nopeer) document. */
      gvrs: z.array(gvrKeySchema),
      /** In the merged document but not in this server's own: what peer-aggregation adds for its clients. */
      onlyInMerged: z.array(gvrKeySchema),
      /** In this server's own document but not in the merged one (CRDs of R6 aside, normally empty). */
      onlyInOwn: z.array(gvrKeySchema),
      /** Groups whose merged version list does not start with this server's own (P9); absent when the orders were not recorded. */
      versionOrder: z.array(versionOrderDifferenceSchema).optional(),
    }),
  ),
});
export type DiscoveryViews = z.infer<typeof discoveryViewsSchema>;

/**
 * The views from the merged document's GVRs and each server's own (sorted keys): what the merge adds
 * for each server's clients, what a server lists that the merge leaves out, and where the merged
 * order of a group's versions differs from the server's own. Shared by the core and
 * by a snapshot viewed offline, so both compare the same way.
 */
export function discoveryViewsOf(
  mode: DiscoveryViews['mode'],
  merged: DiscoveryViews['merged'],
  servers: readonly Pick<DiscoveryViews['servers'][number], 'name' | 'discovery' | 'gitVersion' | 'gvrs'>[],
): DiscoveryViews {
  const mergedSet = new Set(merged.gvrs);
  return {
    mode,
    merged,
    servers: servers.map((s) => {
      const ownSet = new Set(s.gvrs);
      const own = merged.ownGroupVersions?.[s.name];
      return {
        ...s,
        onlyInMerged: merged.gvrs.filter((k) => !ownSet.has(k)),
        onlyInOwn: s.gvrs.filter((k) => !mergedSet.has(k)),
        ...(own && merged.groupVersions ? { versionOrder: versionOrderDifferences(own, merged.groupVersions) } : {}),
      };
    }),
  };
}
