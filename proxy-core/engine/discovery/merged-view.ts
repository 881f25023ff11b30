// The peer-aggregated discovery document as the port serves it now, as a GVR list: what the
// Discovery screen compares with each server's own, and what a snapshot records of it.
import type { GroupVersionOrder, MergedDiscoveryView } from '../../contract/discovery-view.js';
import type { ServerStatus } from '../../contract/servers.js';
import type { APIGroupDiscoveryList } from './types.js';

/** What the view reads of a running core (the Core has it; this file sits below it). */
export interface MergedViewSource {
  serverStatuses(): readonly ServerStatus[];
  /** `--faithful`: the merged /apis keeps D2's order of each group's versions (P9 off). */
  faithful(): boolean;
  readonly servers: { discovery(name: string): { readonly api: APIGroupDiscoveryList; readonly apis: APIGroupDiscoveryList } | undefined };
  readonly routes: { merged(handling: string): { readonly doc: APIGroupDiscoveryList } };
}

/** "group/version/resource" of every resource of a discovery document. */
export function discoveryGvrKeys(doc: APIGroupDiscoveryList): string[] {
  const out: string[] = [];
  for (const g of doc.items) {
    const group = g.metadata?.name ?? '';
    for (const v of g.versions) for (const r of v.resources ?? []) out.push(`${group}/${v.version}/${r.resource}`);
  }
  return out;
}

/** Each group's versions in a document's order. */
export function groupVersionOrder(doc: APIGroupDiscoveryList): GroupVersionOrder {
  return Object.fromEntries(doc.items.map((g) => [g.metadata?.name ?? '', g.versions.map((v) => v.version)]));
}

/**
 * The merged document as a ready server answers it (the legacy /api is that server's own, never
 * merged; /apis merges every server), with the order of each group's versions in it and in each
 * server's own: `handling` is null when no server's discovery has been read.
 */
export function mergedDiscoveryView(core: MergedViewSource): MergedDiscoveryView {
  const statuses = core.serverStatuses();
  const handling =
    statuses.find((s) => s.health === 'ready' && core.servers.discovery(s.name))?.name ??
    statuses.find((s) => core.servers.discovery(s.name))?.name ??
    null;
  const own = handling ? core.servers.discovery(handling) : undefined;
  if (!handling || !own) return { handling: null, gvrs: [] };
  const merged = core.routes.merged(handling).doc;
  const ownGroupVersions: Record<string, GroupVersionOrder> = {};
  for (const s of statuses) {
    const d = core.servers.discovery(s.name);
    if (d) ownGroupVersions[s.name] = groupVersionOrder(d.apis);
  }
  return {
    handling,
    gvrs: [...discoveryGvrKeys(own.api), ...discoveryGvrKeys(merged)].sort(),
    versionOrder: core.faithful() ? 'as-served' : 'priority',
    groupVersions: groupVersionOrder(merged),
    ownGroupVersions,
  };
}
