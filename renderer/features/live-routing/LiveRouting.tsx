// Live routing: every request as it happens (client → handling server → outcome → the server that
// answered), and the request rate stacked by outcome — from the port, from the cluster (what the
// apiservers answered, read from their audit logs, false 404s included), or both. The buffers are
// bounded and the core sends batches, so a busy cluster never floods the page.
import { useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { clusterOutcomes, routeOutcomes } from '../../../proxy-core/contract/index.js';
import { useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import { useShownSession } from '../../shared/shown-recording.js';
import { outcomeStyle, shownOutcomes, type ShownOutcome } from '../../shared/ui/format.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import { useOffline, useView } from '../../shared/view-mode.js';
import { EventTable } from './EventTable.js';
import { False404sByClient } from './False404s.js';
import { OutcomeFilter, useOutcomeFilter } from './OutcomeFilter.js';
import { RateChart } from './RateChart.js';
import { RecordedRouting } from './RecordedRouting.js';
import { formatWindow, PreviewBanner, previewExtent, ReplayBanner, ReplayControl } from './ReplayControl.js';
import { MAX_ROWS } from './routing-feed.js';
import { RoutingAtMoment } from './RoutingAtMoment.js';
import { useScreenFeeds } from './screen-feeds.js';
import type { PreviewState } from './window-preview.js';
import { clusterRow, mergeNewestFirst, portRow, sumSeries, type SourceChoice, type StreamRow } from './stream-rows.js';

export { addToSeries, MAX_ROWS, RATE_SECONDS } from './routing-feed.js';
export { seriesFromEvents } from './RateChart.js';

const outcomeLabel = (o: ShownOutcome) => outcomeStyle[o].label;

const SOURCES: { id: SourceChoice; label: string }[] = [
  { id: 'port', label: 'Port' },
  { id: 'cluster', label: 'Cluster' },
  { id: 'both', label: 'Both' },
];

const OUTCOMES_OF: Record<SourceChoice, readonly ShownOutcome[]> = {
  port: routeOutcomes,
  cluster: clusterOutcomes,
  both: shownOutcomes,
};

const DESCRIPTION: Record<SourceChoice, string> = {
  port: 'Every request through the local port: the server a load balancer handed it to, what Peerscope decided, and who answered.',
  cluster:
    "Every request the apiservers answered, read from their audit logs (most never pass the port): the server that handled it, and how it went judged against the servers' discovery — a false 404 is a server that lacked the GVR while a peer served it.",
  both: 'Requests through the local port and those the apiservers answered, from their audit logs (a request the port forwarded shows in both).',
};

const EMPTY: Record<SourceChoice, string> = {
  port: 'No request has gone through the local port yet. Point kubectl at it, or start traffic.',
  cluster: "No request in the apiservers' audit logs yet.",
  both: "No request yet, through the port or in the apiservers' audit logs.",
};

const CHART_SOURCE: Record<SourceChoice, string> = {
  port: 'through the port',
  cluster: "the apiservers' audit logs",
  both: 'port and audit logs',
};

export function LiveRouting() {
  const offline = useOffline();
  const view = useView();
  const moment = view?.moment ?? null;
  if (offline) return <RecordedRouting offline={offline} />;
  // A single moment holds no stream; a window (its end being the moment) is read from the recording.
  if (moment && view && !view.window) return <RoutingAtMoment moment={moment} view={view} />;
  return <StreamingRouting />;
}

function StreamingRouting() {
  const client = useCoreClient();
  const { portFeed, clusterFeed, hasCluster, recording, replayControls, replay, preview } = useScreenFeeds(client);
  const [chosen, setChosen] = useState<SourceChoice | null>(null);
  // What the operator came for first: the whole cluster's traffic, when the core follows audit logs.
  const source: SourceChoice = hasCluster ? (chosen ?? 'cluster') : 'port';
  const port = useSyncExternalStore(portFeed.subscribe, portFeed.getState);
  const cluster = useSyncExternalStore(clusterFeed.subscribe, clusterFeed.getState);

  const nameOf = useServerNames();
  const portRows = useMemo(() => port.rows.map((e) => portRow(e, outcomeLabel, nameOf)), [port.rows, nameOf]);
  const clusterRows = useMemo(() => cluster.rows.map((e) => clusterRow(e, outcomeLabel)), [cluster.rows]);
  const live = useMemo(
    () => (source === 'port' ? portRows : source === 'cluster' ? clusterRows : mergeNewestFirst(portRows, clusterRows, MAX_ROWS)),
    [source, portRows, clusterRows],
  );
  const series = useMemo(
    () =>
      chartSeries(
        source === 'port' ? port.series : source === 'cluster' ? cluster.series : sumSeries(port.series, cluster.series),
        replay !== null && replay !== undefined,
        preview,
      ),
    [source, port.series, cluster.series, replay, preview],
  );
  const { status, error } = preview
    ? { status: preview.state?.status ?? 'loading', error: preview.state?.error }
    : feedsStatus(source === 'both' ? [port, cluster] : source === 'port' ? [port] : [cluster]);

  // Paused: the table keeps what it showed; the feeds (and the chart) go on.
  const [frozen, setFrozen] = useState<{ rows: readonly StreamRow[]; port: number; cluster: number } | null>(null);
  // A replay started or stopped, or another window: what the table held belongs to the other stream.
  useEffect(() => setFrozen(null), [replay, preview?.feed]);
  const rows = frozen?.rows ?? (status === 'loading' && preview ? [] : live);
  const heldWhilePaused = frozen
    ? (source === 'cluster' ? 0 : port.lastSeq - frozen.port) + (source === 'port' ? 0 : cluster.lastSeq - frozen.cluster)
    : 0;
  const { hidden, visible, inBuffer, toggle } = useOutcomeFilter(rows);
  // A recording opened from a file, at its end: no stream goes by; its requests are replayed or read by window.
  const recordingName = useShownSession()?.recording?.name;
  const stillRecording = recordingName !== undefined && !replay && !preview;

  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Live routing</h2>
          <p className="muted">{DESCRIPTION[source]}</p>
        </div>
        <StreamToolbar
          sources={hasCluster}
          source={source}
          choose={(id) => {
            setChosen(id);
            setFrozen(null);
          }}
          // The preview is a fixed page of the recording: nothing streams to pause.
          pausable={preview === null && !stillRecording}
          paused={frozen !== null}
          togglePause={() => setFrozen(frozen ? null : { rows: live, port: port.lastSeq, cluster: cluster.lastSeq })}
          heldWhilePaused={heldWhilePaused}
        />
      </header>

      <ReplayControl client={recording} controls={replayControls} />
      {replay && <ReplayBanner replay={replay} />}
      {preview && <PreviewBanner window={preview.window} state={preview.state} />}

      {stillRecording ? (
        <AtRecordingEnd name={recordingName} />
      ) : (
        <>
          <RateCard of={hasCluster ? CHART_SOURCE[source] : null} extent={preview?.state} series={series} live={!replay && !preview} />

          {/* Over a preview's first page the tally would be a fragment of the window: Upgrade impact has the window's. */}
          {hasCluster && source !== 'port' && !preview && <False404sByClient feed={clusterFeed} />}

          <OutcomeFilter outcomes={OUTCOMES_OF[source]} hidden={hidden} inBuffer={inBuffer} toggle={toggle} />

          <StreamRows
            status={status}
            error={error}
            retry={() => {
              if (preview) return void preview.feed?.load();
              if (source !== 'cluster') void portFeed.load();
              if (source !== 'port') void clusterFeed.load();
            }}
            empty={preview ? `The recording holds no request in ${formatWindow(preview.window)}.` : EMPTY[source]}
            loading={preview ? "the window's recorded requests" : 'recent requests'}
            held={rows.length}
          >
            <EventTable rows={visible} withSource={source === 'both'} />
          </StreamRows>
        </>
      )}
    </section>
  );
}

/** The rate chart under its heading: which source it counts (with a cluster source), and how much of a window it shows. */
function RateCard({
  of,
  extent,
  series,
  live,
}: {
  of: string | null;
  extent: PreviewState | null | undefined;
  series: Parameters<typeof RateChart>[0]['series'];
  live: boolean;
}) {
  return (
    <div className="card chart-card">
      <h3>
        Requests per second by outcome{of ? ` (${of})` : ''}
        {extent?.status === 'ready' && <span className="muted small"> {previewExtent(extent)}</span>}
      </h3>
      <RateChart series={series} live={live} />
    </div>
  );
}

/** A recording opened from a file, at its end: nothing goes by there; Play or a window shows its requests. */
function AtRecordingEnd({ name }: { name: string }) {
  return (
    <Empty>
      {name} is shown at its end, where no request goes by: Play replays it here, or choose a window in the time control (“15 min”, “Whole”,
      “Range”) to see its requests.
    </Empty>
  );
}

/** The request table (`children`), or, with no row held, what is under way or wrong or that there is none. */
function StreamRows({
  status,
  error,
  retry,
  empty,
  loading,
  held,
  children,
}: {
  status: string;
  error: unknown;
  retry: () => void;
  empty: string;
  loading: string;
  held: number;
  children: ReactNode;
}) {
  if (held > 0) return children;
  if (status === 'loading') return <Loading what={loading} />;
  if (status === 'error') return <ErrorState error={error} retry={retry} />;
  return <Empty>{empty}</Empty>;
}

/** The source switch (with a cluster source) and the pause button, with what arrived while paused. */
function StreamToolbar({
  sources,
  source,
  choose,
  pausable,
  paused,
  togglePause,
  heldWhilePaused,
}: {
  sources: boolean;
  source: SourceChoice;
  choose: (id: SourceChoice) => void;
  pausable: boolean;
  paused: boolean;
  togglePause: () => void;
  heldWhilePaused: number;
}) {
  return (
    <div className="toolbar">
      {sources && (
        <div className="source-switch" role="group" aria-label="Source">
          {SOURCES.map((s) => (
            <button key={s.id} type="button" className="btn" aria-pressed={source === s.id} onClick={() => choose(s.id)}>
              {s.label}
            </button>
          ))}
        </div>
      )}
      {pausable && (
        <button type="button" className={`btn${paused ? ' btn-primary' : ''}`} aria-pressed={paused} onClick={togglePause}>
          {paused ? 'Resume stream' : 'Pause stream'}
        </button>
      )}
      {paused && heldWhilePaused > 0 && (
        <span className="muted" role="status">
          {heldWhilePaused.toLocaleString()} new while paused
        </span>
      )}
    </div>
  );
}

/**
 * The chart's seconds: a replayed second still filling would show a false drop at the right edge; so
 * would a second the window (or the preview's page) cuts at either end.
 */
function chartSeries<T extends { readonly t: number }>(
  all: readonly T[],
  replaying: boolean,
  preview:
    | { readonly window: { readonly from: number; readonly to: number }; readonly state?: { readonly whole?: boolean } | null }
    | null
    | undefined,
): readonly T[] {
  if (replaying) return all.slice(0, -1);
  if (!preview) return all;
  const { from, to } = preview.window;
  const cutAtEnd = preview.state?.whole === false || (all.length > 0 && (all.at(-1)!.t + 1) * 1000 > to);
  return all.slice(all.length > 0 && all[0]!.t * 1000 < from ? 1 : 0, cutAtEnd ? -1 : undefined);
}

/** The shown feeds' status as one: an error first, then still loading. */
function feedsStatus(shown: readonly { readonly status: string; readonly error?: unknown }[]): {
  status: 'error' | 'loading' | 'ready';
  error: unknown;
} {
  const failed = shown.find((s) => s.status === 'error');
  if (failed) return { status: 'error', error: failed.error };
  return { status: shown.some((s) => s.status === 'loading') ? 'loading' : 'ready', error: undefined };
}
