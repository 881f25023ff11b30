// A cluster problem the port hides and the UI must show: a group-version a server serves whose API
// registration (APIService) is gone, so legacy discovery straight to the servers no longer lists it.
// kube-apiserver's legacy `/apis` lists the APIServices (shared by every server through etcd) and the
// aggregator's own group (apiregistration.k8s.io, never an APIService); its aggregated discovery lists
// what the server serves. An older server started while newer ones run deletes, once at start-up, the
// auto-registered APIService of a group only the newer serve (and one may be deleted by hand): the
// newer servers' aggregated discovery keeps the group (seen on real v1.37 servers), every server's
// legacy /apis drops it, and kube-apiserver registers it again only when a server serving it starts.
// So the finding is what clients see: a group-version some server's own aggregated discovery lists
// and that server's own legacy /apis does not. (Comparing the APIService list with discovery instead
// misreads the aggregator's own group as missing on every healthy cluster.) The port's merged legacy
// /apis comes from what each server serves, so its clients keep the group.
import type { MissingRegistration } from '../../contract/client.js';
import type { ServerDiscovery } from './fetch.js';

export type { MissingRegistration };

/** Served by the aggregator itself and listed by its legacy /apis without an APIService. */
const AGGREGATOR_GROUP = 'apiregistration.k8s.io';

export interface RegistrationInput {
  readonly name: string;
  /** What a person reads (display-names.ts); the name when absent. */
  readonly displayName?: string;
  readonly document?: ServerDiscovery;
}

interface Lost {
  readonly versions: string[];
  readonly servedBy: Set<string>;
}

export function missingRegistrations(servers: readonly RegistrationInput[]): MissingRegistration[] {
  const byGroup = new Map<string, Lost>();
  for (const server of servers) {
    // A server whose legacy /apis could not be read (RBAC, or not an APIGroupList) tells nothing.
    const legacy = server.document?.legacyGroupVersions;
    if (!server.document || !legacy) continue;
    const listed = new Set(legacy);
    for (const item of server.document.apis.items) {
      const group = item.metadata?.name ?? '';
      if (!group || group === AGGREGATOR_GROUP) continue;
      for (const { version } of item.versions) {
        if (listed.has(`${group}/${version}`)) continue;
        const entry = byGroup.get(group) ?? { versions: [], servedBy: new Set<string>() };
        byGroup.set(group, entry);
        if (!entry.versions.includes(version)) entry.versions.push(version);
        entry.servedBy.add(server.name);
      }
    }
  }
  return [...byGroup].sort(([a], [b]) => a.localeCompare(b)).map(([group, lost]) => finding(servers, group, lost));
}

function finding(servers: readonly RegistrationInput[], group: string, { versions, servedBy }: Lost): MissingRegistration {
  const shown = new Map(servers.map((s) => [s.name, s.displayName ?? s.name]));
  const nameOf = (name: string) => shown.get(name) ?? name;
  // Whose legacy /apis lacks any of the versions: what their clients do not see.
  const missingFrom = servers
    .filter((s) => s.document?.legacyGroupVersions && versions.some((v) => !s.document!.legacyGroupVersions!.includes(`${group}/${v}`)))
    .map((s) => s.name);
  const notServing = servers.filter((s) => s.document && !s.document.apis.items.some((i) => i.metadata?.name === group));
  const removedBy = notServing.length === 1 ? notServing[0]?.name : undefined;
  const registrations = versions.map((v) => `APIService ${v}.${group}`).join(', ');
  const cause = removedBy
    ? `probably deleted by ${nameOf(removedBy)}, which does not serve the group (kube-apiserver deletes, at start-up, the registrations of groups it does not serve)`
    : 'deleted (by hand, or by a server that does not serve the group at its start-up)';
  return {
    group,
    versions,
    servedBy: [...servedBy],
    missingFrom,
    ...(removedBy ? { removedBy } : {}),
    message: `${group} (${versions.join(', ')}) is served by ${[...servedBy].map(nameOf).join(', ')}, but legacy discovery (GET /apis) straight to ${missingFrom.map(nameOf).join(', ')} does not list it: its registration (${registrations}) is missing, ${cause}. The port's /apis still lists it.`,
  };
}
