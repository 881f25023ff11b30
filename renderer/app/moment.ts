// The app's moment view: the session's recording read at a moment (getStateAt) and shown through a
// read-only CoreClient. One query cache serves the whole moment view, so dragging the scrubber does
// not remount the screens (or the scrubber being dragged); each new moment refetches what they show.
import type { QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CoreClient, Overview } from '../../proxy-core/contract/index.js';
import { queryKeys } from '../shared/client-context.js';
import { createMomentClient } from '../shared/transport/moment-client.js';
import type { MomentView } from '../shared/view-mode.js';

export interface MomentState {
  readonly moment: MomentView | null;
  /** The moment view's query cache; set while a moment is shown. */
  readonly queryClient: QueryClient | null;
  showMoment(at: number): Promise<void>;
  leaveMoment(): void;
}

export function useMomentView(live: CoreClient, liveQueryClient: QueryClient, newQueryClient: () => QueryClient): MomentState {
  const [moment, setMoment] = useState<MomentView | null>(null);
  const cache = useRef<QueryClient | null>(null);
  // Moments asked for while one was read: only the last one asked is shown.
  const asked = useRef(0);

  const showMoment = useCallback(
    async (at: number) => {
      const seq = ++asked.current;
      const [state, overview] = await Promise.all([
        live.getStateAt({ at }),
        liveQueryClient.ensureQueryData<Overview>({ queryKey: queryKeys.overview, queryFn: () => live.getOverview() }),
      ]);
      if (seq !== asked.current) return;
      const settings = {
        policy: overview.policy,
        discoveryMode: overview.discoveryMode,
        ...(overview.faithful ? { faithful: true } : {}),
      };
      cache.current ??= newQueryClient();
      setMoment({ at, state, client: createMomentClient(state, { settings, live }) });
    },
    [live, liveQueryClient, newQueryClient],
  );
  const leaveMoment = useCallback(() => {
    asked.current++;
    cache.current?.clear();
    cache.current = null;
    setMoment(null);
  }, []);
  // The screens' queries ran against the previous moment's client.
  useEffect(() => {
    if (moment) void cache.current?.invalidateQueries();
  }, [moment]);
  return { moment, queryClient: moment ? cache.current : null, showMoment, leaveMoment };
}
