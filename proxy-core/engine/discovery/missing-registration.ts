// A cluster problem the port hides and the UI must show: a group some server serves that no API
// registration (APIService) names. kube-apiserver removes, once at start-up, the auto-registered
// APIServices of groups it does not serve; an older server started while newer ones ran so deletes
// the registration of a group only the newer serve. Their aggregated discovery still lists the group
// (seen on real v1.37 servers), but every server's legacy /apis — built from the APIServices — drops
// it, and legacy clients lose it even straight against the newer servers until those register it
// again. The port's merged legacy /apis comes from what each server serves, so its clients keep it.
import type { MissingRegistration } from '../../contract/client.js';
import type { ServerDiscovery } from './fetch.js';

export type { MissingRegistration };

export interface RegistrationInput {
  readonly name: string;
  /** What a person reads (display-names.ts); the name when absent. */
  readonly displayName?: string;
  readonly document?: ServerDiscovery;
}

export function missingRegistrations(servers: readonly RegistrationInput[]): MissingRegistration[] {
  // The registrations live in etcd: the most recent read of any server is the cluster's.
  const newest = servers
    .filter((s) => s.document?.registeredGroupVersions !== undefined)
    .sort((a, b) => (b.document?.fetchedAt ?? 0) - (a.document?.fetchedAt ?? 0))[0];
  const registered = new Set(newest?.document?.registeredGroupVersions ?? []);
  // A kube-apiserver registers its built-in groups (Local APIServices: v1.apps, v1.batch, …), so an
  // empty list is not a cluster's registrations but a server that keeps none (a simulated one answers
  // an empty list): nothing is said missing. (A server read before its start-up registered them is
  // read again when the APIService watch lists: servers/api-watch.ts.)
  if (!newest || registered.size === 0) return [];
  const shown = new Map(servers.map((s) => [s.name, s.displayName ?? s.name]));
  const byGroup = new Map<string, { versions: string[]; servedBy: Set<string> }>();
  for (const server of servers) {
    for (const item of server.document?.apis.items ?? []) {
      const group = item.metadata?.name ?? '';
      if (!group) continue;
      for (const v of item.versions) {
        if (registered.has(`${group}/${v.version}`)) continue;
        const entry = byGroup.get(group) ?? { versions: [], servedBy: new Set<string>() };
        byGroup.set(group, entry);
        if (!entry.versions.includes(v.version)) entry.versions.push(v.version);
        entry.servedBy.add(server.name);
      }
    }
  }
  const out: MissingRegistration[] = [];
  for (const [group, { versions, servedBy }] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    const lacking = servers.filter((s) => s.document && !s.document.apis.items.some((i) => i.metadata?.name === group));
    const removedBy = lacking.length === 1 ? lacking[0]?.name : undefined;
    const served = [...servedBy].map((n) => shown.get(n) ?? n).join(', ');
    const registrations = versions.map((v) => `APIService ${v}.${group}`).join(', ');
    const cause = removedBy
      ? `probably removed by ${shown.get(removedBy) ?? removedBy}, which does not serve the group (kube-apiserver deletes, at start-up, the registrations of groups it does not serve)`
      : 'removed, or never made (kube-apiserver deletes, at start-up, the registrations of groups it does not serve)';
    out.push({
      group,
      versions,
      servedBy: [...servedBy],
      ...(removedBy ? { removedBy } : {}),
      message: `${group} (${versions.join(', ')}) is served by ${served} but has no API registration (${registrations}: ${cause}). Legacy discovery straight to the servers does not list it; the port's /apis still does.`,
    });
  }
  return out;
}
