// The application shell: the cluster at a glance (port, servers, outcome totals, settings and the
// simulated rollout's controls) above six screens in keyboard-navigable tabs. The screens show the
// live cluster, or a snapshot opened offline: the same components over a read-only CoreClient built
// from the snapshot, with a banner saying so and the controls that would change a cluster hidden.
import { QueryClient, QueryClientProvider, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';
import type { CoreClient, Overview } from '../../proxy-core/contract/index.js';
import { Discovery, DiscoveryOffline } from '../features/discovery/Discovery.js';
import { GvrMatrix } from '../features/gvr-matrix/GvrMatrix.js';
import { LiveRouting } from '../features/live-routing/LiveRouting.js';
import { RoutingFeed, RoutingFeedContext } from '../features/live-routing/routing-feed.js';
import { PeerHealth } from '../features/peer-health/PeerHealth.js';
import { downloadSnapshot } from '../features/snapshots/describe.js';
import { SnapshotLibrary, type LibraryEntry } from '../features/snapshots/library.js';
import { OfflineBanner } from '../features/snapshots/OfflineBanner.js';
import { Snapshots } from '../features/snapshots/Snapshots.js';
import { UpgradeImpact } from '../features/upgrade-impact/UpgradeImpact.js';
import { CoreClientProvider, queryKeys, useCoreClient, useCoreEventsIntoCache } from './client-context.js';
import type { ConnectionState } from './transport/http.js';
import { createSnapshotClient } from './transport/snapshot-client.js';
import { shortRelease } from './ui/format.js';
import { ErrorState, HealthBadge } from './ui/states.js';
import { useOffline, useView, ViewContext, type OfflineView, type ViewState } from './view-mode.js';

export interface ConnectionSource {
  connection(): ConnectionState;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

type TabId = 'matrix' | 'routing' | 'health' | 'discovery' | 'impact' | 'snapshots';
const TABS: { id: TabId; label: string; render: (offline: boolean) => ReactNode }[] = [
  { id: 'matrix', label: 'GVR matrix', render: () => <GvrMatrix /> },
  { id: 'routing', label: 'Live routing', render: () => <LiveRouting /> },
  { id: 'health', label: 'Peer health', render: () => <PeerHealth /> },
  { id: 'discovery', label: 'Discovery', render: (offline) => (offline ? <DiscoveryOffline /> : <Discovery />) },
  { id: 'impact', label: 'Upgrade impact', render: () => <UpgradeImpact /> },
  { id: 'snapshots', label: 'Snapshots', render: () => <Snapshots /> },
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
  const [library] = useState(() => new SnapshotLibrary());
  const [offline, setOffline] = useState<Offline | null>(null);
  const [tab, setTab] = useState<TabId>('matrix');

  const open = useCallback((entry: LibraryEntry) => {
    const client = createSnapshotClient(entry.snapshot, { label: entry.label, live });
    setOffline((previous) => {
      previous?.queryClient.clear();
      return { seq: ++offlineSeq, entry, snapshot: entry.snapshot, client, queryClient: createQueryClient(), feed: new RoutingFeed(client) };
    });
  }, [live]);
  const leave = useCallback(() => {
    setOffline((previous) => {
      previous?.queryClient.clear();
      return null;
    });
    // Pushed events kept the live cache current; a refetch covers anything else.
    void liveQueryClient.invalidateQueries();
  }, [liveQueryClient]);
  // The desktop app's menu opens snapshot files itself (validated by the core) and tells the page.
  useEffect(() => live.subscribe((event) => {
    if (event.type === 'snapshot-opened') open(library.add(event.snapshot, event.file, 'file'));
  }), [live, library, open]);
  const view = useMemo<ViewState>(() => ({ offline, live, library, open, leave }), [offline, live, library, open, leave]);

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
      ) : (
        <RoutingFeedContext.Provider value={feed} key="live">{shell}</RoutingFeedContext.Provider>
      )}
    </ViewContext.Provider>
  );
}

function Shell({ tab, setTab, connection }: { tab: TabId; setTab: (t: TabId) => void; connection: ConnectionSource | undefined }) {
  const view = useView();
  const offline = view?.offline ?? null;
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? (index + 1) % TABS.length : e.key === 'ArrowLeft' ? (index - 1 + TABS.length) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    const id = TABS[next]!.id;
    setTab(id);
    tabRefs.current[id]?.focus();
  };

  return (
    <div className={`app${offline ? ' is-offline' : ''}`}>
      <TopBar connection={connection} />
      {offline && view && <OfflineBanner offline={offline} onLeave={view.leave} />}
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
        {TABS.find((t) => t.id === tab)!.render(offline !== null)}
      </main>
    </div>
  );
}

function useConnection(source: ConnectionSource | undefined): ConnectionState | undefined {
  return useSyncExternalStore(
    (cb) => source?.onConnection(cb) ?? (() => undefined),
    () => source?.connection(),
  );
}

function TopBar({ connection }: { connection: ConnectionSource | undefined }) {
  const client = useCoreClient();
  const queryClient = useQueryClient();
  const offline = useOffline();
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => client.getOverview(), refetchInterval: offline ? false : 5_000 });
  const state = useConnection(connection);
  // Events pushed while the stream was down are lost: after a reconnect, read everything again.
  const previous = useRef(state);
  useEffect(() => {
    if (state === 'live' && previous.current === 'reconnecting') void queryClient.invalidateQueries();
    previous.current = state;
  }, [state, queryClient]);
  return (
    <header className="topbar">
      <div className="brand">
        <span className="logo" aria-hidden="true" />
        <span className="brand-name">Peerscope</span>
        {overview.data?.listen && <code className="port" title="The local port: point kubectl here">{overview.data.listen.host}:{overview.data.listen.port}</code>}
        {overview.data && (
          <span className={`mode-chip${overview.data.discoveryMode === 'nopeer' ? ' mode-nopeer' : ''}`} title="Discovery on the local port (change it on the Discovery screen)">
            discovery: {overview.data.discoveryMode}
          </span>
        )}
        {offline ? (
          <span className="conn conn-offline" role="status">offline snapshot</span>
        ) : (
          state && <span className={`conn conn-${state}`} role="status">{state === 'live' ? 'live' : state === 'unauthorized' ? 'token refused' : state}</span>
        )}
      </div>
      {overview.isError ? (
        <ErrorState error={overview.error} retry={() => void overview.refetch()} />
      ) : overview.data ? (
        <>
          <ServerStrip overview={overview.data} />
          <Totals overview={overview.data} />
          <Controls overview={overview.data} />
        </>
      ) : null}
    </header>
  );
}

function ServerStrip({ overview }: { overview: Overview }) {
  return (
    <ul className="server-strip" aria-label="Apiservers">
      {overview.servers.map((s) => (
        <li key={s.name} className="server-chip">
          <span className="server-name">{s.name}</span>
          <span className="release" title={s.gitVersion}>{shortRelease(s.gitVersion)}</span>
          <HealthBadge health={s.health} />
        </li>
      ))}
    </ul>
  );
}

function Totals({ overview }: { overview: Overview }) {
  const t = overview.totals;
  const total = Object.values(t).reduce((a, b) => a + b, 0);
  return (
    <dl className="totals" aria-label="Requests through the port">
      <div><dt>requests</dt><dd>{total.toLocaleString()}</dd></div>
      <div><dt>rerouted</dt><dd className="t-rerouted">{t.rerouted.toLocaleString()}</dd></div>
      <div><dt>404</dt><dd className="t-notfound">{t.notfound.toLocaleString()}</dd></div>
      <div><dt>503</dt><dd className="t-unavailable">{t.unavailable.toLocaleString()}</dd></div>
    </dl>
  );
}

function Controls({ overview }: { overview: Overview }) {
  const client = useCoreClient();
  // Offline, the controls show what the snapshot recorded; nothing that would change a cluster is offered.
  const offline = useOffline();
  const setPolicy = useMutation({ mutationFn: (p: string) => client.setPolicy({ policy: p }) });
  const snapshot = useMutation({ mutationFn: () => client.takeSnapshot(), onSuccess: downloadSnapshot });
  return (
    <div className="controls">
      <label className="field">
        <span>Handling policy</span>
        <select
          value={setPolicy.isPending ? setPolicy.variables : overview.policy}
          onChange={(e) => setPolicy.mutate(e.target.value)}
          disabled={offline !== null}
          title={offline ? 'The policy the port used when the snapshot was taken' : undefined}
        >
          <option value="round-robin">round-robin</option>
          <option value="random">random</option>
          {overview.servers.map((s) => (
            <option key={s.name} value={`pin:${s.name}`}>pin to {s.name}</option>
          ))}
        </select>
      </label>
      {overview.sim && !offline && <SimControls overview={overview} />}
      {!offline && (
        <button type="button" className="btn" onClick={() => snapshot.mutate()} disabled={snapshot.isPending}>
          Export snapshot
        </button>
      )}
      {(setPolicy.error || snapshot.error) && <span className="error-text" role="alert">{(setPolicy.error ?? snapshot.error)?.message}</span>}
    </div>
  );
}

function SimControls({ overview }: { overview: Overview }) {
  const client = useCoreClient();
  const sim = overview.sim!;
  const start = useMutation({ mutationFn: () => client.startRollout() });
  const pause = useMutation({ mutationFn: () => client.pauseRollout() });
  const rate = useMutation({ mutationFn: (rps: number) => client.setTrafficRate({ rps }) });
  const [rps, setRps] = useState(String(sim.trafficRps ?? 0));
  useEffect(() => setRps(String(sim.trafficRps ?? 0)), [sim.trafficRps]);
  const phase = sim.rollout.phase;
  const step = sim.rollout.current ? ` · ${sim.rollout.current.server} ${sim.rollout.current.phase}` : '';
  return (
    <div className="sim-controls" role="group" aria-label="Simulated rollout">
      <span className={`rollout-phase phase-${phase}`} role="status">
        rollout {sim.rollout.from} → {sim.rollout.to}: {phase}{step}
      </span>
      {phase === 'running' ? (
        <button type="button" className="btn" onClick={() => pause.mutate()}>Pause rollout</button>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => start.mutate()} disabled={phase === 'done'}>
          {phase === 'paused' ? 'Resume rollout' : 'Start rollout'}
        </button>
      )}
      {sim.trafficRps !== undefined && (
        <form
          className="field inline"
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(rps);
            if (Number.isFinite(n) && n >= 0) rate.mutate(n);
          }}
        >
          <label htmlFor="traffic-rps">Traffic (req/s)</label>
          <input id="traffic-rps" type="number" min={0} max={10000} value={rps} onChange={(e) => setRps(e.target.value)} />
          <button type="submit" className="btn">Set</button>
        </form>
      )}
    </div>
  );
}
