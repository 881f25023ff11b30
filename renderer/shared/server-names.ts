// What a person reads for a server: its display name (the host name of its identity lease, made unique
// by the core), while every key, filter and request keeps the server's identity.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { shownName } from '../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from './client-context.js';

/** Identity → the name to show; an identity the overview does not list yet is shown as it is. */
export type ServerNamer = (name: string) => string;

export function useServerNames(): ServerNamer {
  const client = useCoreClient();
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => client.getOverview() });
  const servers = overview.data?.servers;
  return useMemo(() => {
    const shown = new Map((servers ?? []).map((s) => [s.name, shownName(s)]));
    return (name: string) => shown.get(name) ?? name;
  }, [servers]);
}
