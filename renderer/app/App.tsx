// The application shell: the cluster at a glance (port, servers, outcome totals, settings and the
// simulated rollout's controls) above seven screens in keyboard-navigable tabs. The screens show the
// live cluster, a snapshot opened offline, or a moment of the session's recording: the same components
// over a read-only CoreClient built from the snapshot or the moment, with a banner saying so and the
// controls that would change a cluster hidden.
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { CoreClient } from '../../proxy-core/contract/index.js';
import { Discovery, DiscoveryOffline } from '../features/discovery/Discovery.js';
import { GvrMatrix } from '../features/gvr-matrix/GvrMatrix.js';
import { LiveRouting } from '../features/live-routing/LiveRouting.js';
import { ClusterFeed, ClusterFeedContext } from '../features/live-routing/cluster-feed.js';
import { RoutingFeed, RoutingFeedContext } from '../features/live-routing/routing-feed.js';
import { ServerHealth } from '../features/server-health/ServerHealth.js';
import { SnapshotLibrary, type LibraryEntry } from '../shared/snapshot-library.js';
import { OfflineBanner } from '../features/snapshots/OfflineBanner.js';
import { Snapshots } from '../features/snapshots/Snapshots.js';
import { UpgradeImpact } from '../features/upgrade-impact/UpgradeImpact.js';
import { RecordingBanner } from '../features/recordings/RecordingBanner.js';
import { Recordings } from '../features/recordings/Recordings.js';
import type { ConnectionSource } from './cluster-bar/connection.js';
import { TopBar } from './cluster-bar/TopBar.js';
import { CoreClientProvider, useCoreClient, useCoreEventsIntoCache } from '../shared/client-context.js';
import { createSnapshotClient } from '../shared/transport/snapshot-client.js';
import { useView, ViewContext, type OfflineView, type ViewState } from '../shared/view-mode.js';
import { MomentBanner, MomentUnavailable } from './MomentBanner.js';
import { useMomentView } from './moment.js';

export type { ConnectionSource };

type TabId = 'matrix' | 'routing' | 'health' | 'discovery' | 'impact' | 'snapshots' | 'recordings';
/**
 * `atMoment`: false, the screen has no data at a recorded moment or window (yet), and says so in its
 * place; 'window', it reads a window of the recording and says so at a single moment. Unset, the
 * screen renders under either (Live routing previews and replays a window, and words a moment itself).
 */
const TABS: { id: TabId; label: string; render: (offline: boolean) => ReactNode; atMoment?: false | 'window' }[] = [
  { id: 'matrix', label: 'GVR matrix', render: () => <GvrMatrix /> },
  { id: 'routing', label: 'Live routing', render: () => <LiveRouting /> },
  { id: 'health', label: 'Server health', render: () => <ServerHealth /> },
  { id: 'discovery', label: 'Discovery', render: (offline) => (offline ? <DiscoveryOffline /> : <Discovery />), atMoment: false },
  { id: 'impact', label: 'Upgrade impact', render: () => <UpgradeImpact />, atMoment: 'window' },
  { id: 'snapshots', label: 'Snapshots', render: () => <Snapshots /> },
  { id: 'recordings', label: 'Recordings', render: () => <Recordings /> },
];

export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 1_000 } } });
}

export function App({ client, connection, queryClient }: { client: CoreClient; connection?: ConnectionSource; queryClient?: QueryClient }) {
  const [qc] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={qc}>
      <CoreClientProvider client={client}>
        <Root connection={connection} />
      </CoreClientProvider>
    </QueryClientProvider>
  );
}

/** A snapshot shown offline, with its own query cache and (idle) routing feed. */
interface Offline extends OfflineView {
  readonly seq: number;
  readonly queryClient: QueryClient;
  readonly feed: RoutingFeed;
}

let offlineSeq = 0;

function Root({ connection }: { connection: ConnectionSource | undefined }) {
  // The live cache and the live routing feed keep running while a snapshot is shown.
  useCoreEventsIntoCache();
  const live = useCoreClient();
  const liveQueryClient = useQueryClient();
  const [feed] = useState(() => new RoutingFeed(live));
  useEffect(() => feed.start(), [feed]);
  // The cluster source's feed runs from the start too, so its rows and rates are there when asked for.
  const [clusterFeed] = useState(() => new ClusterFeed(live));
  useEffect(() => clusterFeed.start(), [clusterFeed]);
  const [library] = useState(() => new SnapshotLibrary());
  const [offline, setOffline] = useState<Offline | null>(null);
  const [tab, setTab] = useState<TabId>('matrix');
  const moments = useMomentView(live, liveQueryClient, createQueryClient);
  const { leaveMoment } = moments;

  const open = useCallback(
    (entry: LibraryEntry) => {
      const client = createSnapshotClient(entry.snapshot, { label: entry.label, live });
      leaveMoment();
      setOffline((previous) => {
        previous?.queryClient.clear();
        return {
          seq: ++offlineSeq,
          entry,
          snapshot: entry.snapshot,
          client,
          queryClient: createQueryClient(),
          feed: new RoutingFeed(client),
        };
      });
    },
    [live, leaveMoment],
  );
  const leave = useCallback(() => {
    leaveMoment();
    setOffline((previous) => {
      previous?.queryClient.clear();
      return null;
    });
    // Pushed events kept the live cache current; a refetch covers anything else.
    void liveQueryClient.invalidateQueries();
  }, [liveQueryClient, leaveMoment]);
  // The desktop app's menu opens snapshot files itself (validated by the core) and tells the page.
  useEffect(
    () =>
      live.subscribe((event) => {
        if (event.type === 'snapshot-opened') open(library.add(event.snapshot, event.file, 'file'));
        // A moment or window of the previous session's recording (a recording opened, or left) means nothing in the next.
        if (event.type === 'session') {
          leaveMoment();
          // The live cache was not mounted to hear the switch while a moment was shown.
          void liveQueryClient.invalidateQueries();
        }
      }),
    [live, library, open, leaveMoment, liveQueryClient],
  );
  const { moment, showMoment, window, windowChoice, showWindow } = moments;
  const view = useMemo<ViewState>(
    () => ({ offline, moment, showMoment, window, windowChoice, showWindow, live, liveQueries: liveQueryClient, library, open, leave }),
    [offline, moment, showMoment, window, windowChoice, showWindow, live, liveQueryClient, library, open, leave],
  );

  const shell = <Shell tab={tab} setTab={setTab} connection={connection} />;
  return (
    <ViewContext.Provider value={view}>
      {offline ? (
        // A fresh subtree per snapshot: react-query's observers belong to one cache.
        <QueryClientProvider client={offline.queryClient} key={`offline-${offline.seq}`}>
          <CoreClientProvider client={offline.client}>
            <RoutingFeedContext.Provider value={offline.feed}>{shell}</RoutingFeedContext.Provider>
          </CoreClientProvider>
        </QueryClientProvider>
      ) : moment && moments.queryClient ? (
        // One subtree for every moment, so the scrubber being dragged stays mounted (moment.ts).
        <QueryClientProvider client={moments.queryClient} key="moment">
          <CoreClientProvider client={moment.client}>{shell}</CoreClientProvider>
        </QueryClientProvider>
      ) : (
        <RoutingFeedContext.Provider value={feed} key="live">
          <ClusterFeedContext.Provider value={clusterFeed}>{shell}</ClusterFeedContext.Provider>
        </RoutingFeedContext.Provider>
      )}
    </ViewContext.Provider>
  );
}

function Shell({ tab, setTab, connection }: { tab: TabId; setTab: (t: TabId) => void; connection: ConnectionSource | undefined }) {
  const view = useView();
  const offline = view?.offline ?? null;
  const moment = view?.moment ?? null;
  const shown = TABS.find((t) => t.id === tab)!;
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    const next =
      e.key === 'ArrowRight'
        ? (index + 1) % TABS.length
        : e.key === 'ArrowLeft'
          ? (index - 1 + TABS.length) % TABS.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? TABS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    const id = TABS[next]!.id;
    setTab(id);
    tabRefs.current[id]?.focus();
  };

  return (
    <div className={`app${offline || moment ? ' is-offline' : ''}`}>
      <TopBar connection={connection} />
      {offline && view && <OfflineBanner offline={offline} onLeave={view.leave} />}
      {moment && view && <MomentBanner moment={moment} window={view.window} onLeave={view.leave} />}
      <RecordingBanner />
      <nav className="tabs" role="tablist" aria-label="Screens">
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            className="tab"
            onClick={() => setTab(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
          </button>
        ))}
      </nav>
      <main className="content" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {moment && (shown.atMoment === false || (shown.atMoment === 'window' && !view?.window)) ? (
          <MomentUnavailable screen={shown.label} moment={moment} window={view?.window ?? null} />
        ) : (
          shown.render(offline !== null)
        )}
      </main>
    </div>
  );
}
