// The CoreClient the whole UI talks to, and the bridge from pushed core events to react-query's cache.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import type { CoreClient, CoreEvent, Overview } from '../../proxy-core/contract/index.js';

const CoreClientContext = createContext<CoreClient | null>(null);

export function CoreClientProvider({ client, children }: { client: CoreClient; children: ReactNode }) {
  return <CoreClientContext.Provider value={client}>{children}</CoreClientContext.Provider>;
}

export function useCoreClient(): CoreClient {
  const client = useContext(CoreClientContext);
  if (!client) throw new Error('useCoreClient outside CoreClientProvider');
  return client;
}

export const queryKeys = {
  overview: ['overview'] as const,
  routeTable: ['route-table'] as const,
  healthHistory: ['health-history'] as const,
  discoveryViews: ['discovery-views'] as const,
  events: ['events'] as const,
  clusterGvrRates: ['cluster-gvr-rates'] as const,
};

/** Keeps cached queries current from the core's pushed events (no polling for what is pushed). */
export function useCoreEventsIntoCache(): void {
  const client = useCoreClient();
  const queryClient = useQueryClient();
  useEffect(() => {
    return client.subscribe((event: CoreEvent) => {
      switch (event.type) {
        case 'servers':
          queryClient.setQueryData<Overview>(queryKeys.overview, (old) => (old ? { ...old, servers: event.servers } : old));
          void queryClient.invalidateQueries({ queryKey: queryKeys.routeTable });
          break;
        case 'route-table':
          void queryClient.invalidateQueries({ queryKey: queryKeys.routeTable });
          void queryClient.invalidateQueries({ queryKey: queryKeys.discoveryViews });
          break;
        case 'settings':
          queryClient.setQueryData<Overview>(queryKeys.overview, (old) => (old ? { ...old, ...event.settings } : old));
          void queryClient.invalidateQueries({ queryKey: queryKeys.discoveryViews });
          break;
        case 'session':
          // Everything cached describes the previous cluster.
          void queryClient.invalidateQueries();
          break;
        case 'sim':
          queryClient.setQueryData<Overview>(queryKeys.overview, (old) => (old ? { ...old, sim: event.sim } : old));
          break;
        case 'routing':
          queryClient.setQueryData<Overview>(queryKeys.overview, (old) => {
            if (!old) return old;
            const totals = { ...old.totals };
            for (const [outcome, n] of Object.entries(event.counts) as [keyof typeof totals, number][]) totals[outcome] += n;
            return { ...old, totals, lastSeq: event.lastSeq };
          });
          break;
        case 'cluster':
          queryClient.setQueryData<Overview>(queryKeys.overview, (old) => {
            if (!old?.cluster) return old;
            const totals = { ...old.cluster.totals };
            for (const [outcome, n] of Object.entries(event.counts) as [keyof typeof totals, number][]) totals[outcome] += n;
            return { ...old, cluster: { ...old.cluster, totals, lastSeq: event.lastSeq } };
          });
          break;
      }
    });
  }, [client, queryClient]);
}
