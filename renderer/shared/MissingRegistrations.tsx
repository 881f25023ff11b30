// A cluster problem the port hides: a group some server serves whose API registration (APIService) is
// gone — an older kube-apiserver deleted it at its start-up, or someone by hand. Clients of legacy
// discovery straight to the servers lose the group; the port's merged /apis keeps it. Shown above the GVR matrix and on
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
            <strong className="mono">{m.group}</strong> ({m.versions.join(', ')}) is served by {m.servedBy.map(nameOf).join(', ')}, but
            legacy discovery straight to {m.missingFrom?.length ? m.missingFrom.map(nameOf).join(', ') : 'the servers'} does not list it:
            its APIService is gone
            {m.removedBy ? (
              <>
                , probably deleted by <strong>{nameOf(m.removedBy)}</strong> at its start-up (kube-apiserver deletes the registrations of
                groups it does not serve)
              </>
            ) : null}
            . Clients of legacy discovery (kubectl with an old cache, client-go before aggregated discovery) do not see it; the port still
            lists it. It comes back when the APIService is recreated or a server that serves the group restarts.
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
