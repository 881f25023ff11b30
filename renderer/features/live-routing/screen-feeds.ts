// Which feeds the Live routing screen draws: a replay's while one is on; else, with a window chosen in
// the top bar, that window's first recorded events (window-preview.ts); else the live stream's. Under
// a window the screens' client is a read-only moment client that streams nothing: the recording is
// read through the live core (useView().live), never the live stream.
import { useQuery } from '@tanstack/react-query';
import { useContext, useEffect, useMemo, useState, type Context } from 'react';
import type { CoreClient } from '../../../proxy-core/contract/index.js';
import { queryKeys } from '../../shared/client-context.js';
import { useTimeWindow, type TimeWindow } from '../../shared/view-mode.js';
import { ClusterFeed, ClusterFeedContext } from './cluster-feed.js';
import type { EventFeed } from './event-feed.js';
import type { Replay } from './replay.js';
import { RoutingFeed, RoutingFeedContext } from './routing-feed.js';
import { useScreenReplay } from './use-replay.js';
import type { ReplayControls } from './use-replay.js';
import { useWindowPreview, type PreviewState, type WindowPreview } from './window-preview.js';

/** The app's feed of a source, or one of the screen's own (rendered alone, in tests), started while `active`. */
function useFeed<F extends EventFeed<{ readonly seq: number }>>(context: Context<F | null>, create: () => F, active: boolean): F {
  const shared = useContext(context);
  const [own] = useState(() => (shared ? null : create()));
  useEffect(() => (active ? own?.start() : undefined), [own, active]);
  return shared ?? own!;
}

export interface ScreenFeeds {
  readonly portFeed: RoutingFeed;
  readonly clusterFeed: ClusterFeed;
  /** Whether the screen offers the cluster source (the live core follows audit logs, or the recording played some). */
  readonly hasCluster: boolean;
  readonly recording: CoreClient;
  readonly replayControls: ReplayControls;
  readonly replay: Replay | null;
  /** The top bar's window, shown before Play (null live, or while a replay is on). */
  readonly preview: { readonly window: TimeWindow; readonly feed: WindowPreview | null; readonly state: PreviewState | null } | null;
}

export function useScreenFeeds(client: CoreClient): ScreenFeeds {
  const window = useTimeWindow();
  // Only whether there is a cluster source: the overview's totals change with every pushed batch (up
  // to twenty a second), and re-rendering the whole screen for each cost frames at 5,000 events/s.
  const overview = useQuery({
    queryKey: queryKeys.overview,
    queryFn: () => client.getOverview(),
    select: (o) => o.cluster !== undefined,
  });
  // A replay's feeds take the live ones' place: the same table, chart and tallies draw the recording.
  const { recording, controls: replayControls, replay, replayedCluster } = useScreenReplay(client);
  const { preview, state } = useWindowPreview(recording, window, replay !== null);
  // Another window chosen in the top bar: the replay of the previous one gives way to it.
  const { stop } = replayControls;
  useEffect(() => {
    stop();
  }, [stop, window?.from, window?.to]);
  const previewing = window !== null && replay === null;
  const livePortFeed = useFeed(RoutingFeedContext, () => new RoutingFeed(client), window === null);
  const liveClusterFeed = useFeed(ClusterFeedContext, () => new ClusterFeed(client), window === null && overview.data === true);
  const shownPreview = previewing && preview?.window.from === window.from && preview.window.to === window.to ? preview : null;
  // One object while nothing changes: the screen's memos depend on it.
  const shown = useMemo(
    () => (window && previewing ? { window, feed: shownPreview, state: shownPreview ? state : null } : null),
    [window, previewing, shownPreview, state],
  );
  return {
    portFeed: replay?.port ?? shownPreview?.port ?? livePortFeed,
    clusterFeed: replay?.cluster ?? shownPreview?.cluster ?? liveClusterFeed,
    hasCluster: replay ? replayedCluster : previewing ? shownPreview !== null && state?.cluster === true : overview.data === true,
    recording,
    replayControls,
    replay,
    preview: shown,
  };
}
