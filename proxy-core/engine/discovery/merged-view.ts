// The peer-aggregated discovery document as the port serves it now, as a GVR list: what the
// Discovery screen compares with each server's own, and what a snapshot records of it.
import type { ServerStatus } from '../../contract/servers.js';
import type { APIGroupDiscoveryList } from './types.js';

/** What the view reads of a running core (the Core has it; this file sits below it). */
export interface MergedViewSource {
  serverStatuses(): readonly ServerStatus[];
  readonly servers: { discovery(name: string): { readonly api: APIGroupDiscoveryList } | undefined };
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

/**
 * The merged document as a ready server answers it (the legacy /api is that server's own, never
 * merged; /apis merges every server): `handling` is null when no server's discovery has been read.
 */
export function mergedDiscoveryView(core: MergedViewSource): { handling: string | null; gvrs: string[] } {
  const statuses = core.serverStatuses();
  const handling =
    statuses.find((s) => s.health === 'ready' && core.servers.discovery(s.name))?.name ??
    statuses.find((s) => core.servers.discovery(s.name))?.name ??
    null;
  const own = handling ? core.servers.discovery(handling) : undefined;
  if (!handling || !own) return { handling: null, gvrs: [] };
  return { handling, gvrs: [...discoveryGvrKeys(own.api), ...discoveryGvrKeys(core.routes.merged(handling).doc)].sort() };
}
