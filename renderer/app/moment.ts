// The app's moment view: the session's recording read at a moment (getStateAt) and shown through a
// read-only CoreClient, or over a window — the state at the window's end, with the window itself for
// the screens that read a span (Upgrade impact, False 404s by client, the replay). One query cache
// serves the whole moment view, so dragging the scrubber does not remount the screens (or the scrubber
// being dragged); each new moment or window refetches what they show.
import type { QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CoreClient, Overview } from '../../proxy-core/contract/index.js';
import { queryKeys } from '../shared/client-context.js';
import { createMomentClient } from '../shared/transport/moment-client.js';
import type { MomentView, TimeWindow, WindowChoice } from '../shared/view-mode.js';

export interface MomentState {
  readonly moment: MomentView | null;
  /** The window chosen; `moment` is then its end. */
  readonly window: TimeWindow | null;
  readonly windowChoice: WindowChoice | null;
  /** The moment view's query cache; set while a moment is shown. */
  readonly queryClient: QueryClient | null;
  showMoment(at: number): Promise<void>;
  showWindow(window: TimeWindow, choice?: WindowChoice): Promise<void>;
  leaveMoment(): void;
}

interface Shown {
  readonly moment: MomentView;
  readonly window: TimeWindow | null;
  readonly choice: WindowChoice | null;
}

export function useMomentView(live: CoreClient, liveQueryClient: QueryClient, newQueryClient: () => QueryClient): MomentState {
  const [shown, setShown] = useState<Shown | null>(null);
  const cache = useRef<QueryClient | null>(null);
  // Moments asked for while one was read: only the last one asked is shown.
  const asked = useRef(0);

  const show = useCallback(
    async (at: number, window: TimeWindow | null, choice: WindowChoice | null) => {
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
      const client = createMomentClient(state, { settings, live, window, recording: overview.recording });
      setShown({ moment: { at, state, client, recording: overview.recording }, window, choice });
    },
    [live, liveQueryClient, newQueryClient],
  );
  const showMoment = useCallback((at: number) => show(at, null, null), [show]);
  const showWindow = useCallback(
    (window: TimeWindow, choice: WindowChoice = 'range') => {
      if (!(window.from < window.to)) return Promise.reject(new Error('A window must start before it ends.'));
      // The state as the window closes: its last millisecond.
      return show(window.to - 1, { from: window.from, to: window.to }, choice);
    },
    [show],
  );
  const leaveMoment = useCallback(() => {
    asked.current++;
    cache.current?.clear();
    cache.current = null;
    setShown(null);
  }, []);
  // The screens' queries ran against the previous moment's client.
  useEffect(() => {
    if (shown) void cache.current?.invalidateQueries();
  }, [shown]);
  return {
    moment: shown?.moment ?? null,
    window: shown?.window ?? null,
    windowChoice: shown?.choice ?? null,
    queryClient: shown ? cache.current : null,
    showMoment,
    showWindow,
    leaveMoment,
  };
}
