// A cluster problem the port hides: a group some server serves that no API registration (APIService)
// names — an older kube-apiserver removed it at its start-up. Clients of legacy discovery straight to
// the servers lose the group; the port's merged /apis keeps it. Shown above the GVR matrix and on
// the Server health screen, in plain words.
import { useQuery } from '@tanstack/react-query';
import type { MissingRegistration } from '../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from './client-context.js';
import { useServerNames } from './server-names.js';

export function MissingRegistrations({ missing }: { missing: readonly MissingRegistration[] | undefined }) {
  const nameOf = useServerNames();
  if (!missing?.length) return null;
  return (
    <div className="missing-registrations" role="note" aria-label="Missing API registrations">
      <h3 className="warn-text">API registration missing</h3>
      <ul>
        {missing.map((m) => (
          <li key={m.group} data-group={m.group}>
            <strong className="mono">{m.group}</strong> ({m.versions.join(', ')}) is served by {m.servedBy.map(nameOf).join(', ')}, but no
            APIService registers it
            {m.removedBy ? (
              <>
                : probably removed by <strong>{nameOf(m.removedBy)}</strong> at its start-up (kube-apiserver deletes the registrations of
                groups it does not serve)
              </>
            ) : null}
            . Legacy discovery straight to the servers no longer lists it (kubectl with an old cache, client-go before aggregated
            discovery); the port still does. It comes back when a server that serves it registers it again.
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The same, reading the route table itself (the Server health screen). */
export function MissingRegistrationsFromRouteTable() {
  const client = useCoreClient();
  const query = useQuery({ queryKey: queryKeys.routeTable, queryFn: () => client.getRouteTable() });
  return <MissingRegistrations missing={query.data?.missingRegistrations} />;
}
