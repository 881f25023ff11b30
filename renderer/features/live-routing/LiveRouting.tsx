// Live routing: every request as it happens (client → handling server → outcome → the server that
// answered), and the request rate stacked by outcome — from the port, from the cluster (what the
// apiservers answered, read from their audit logs, false 404s included), or both. The buffers are
// bounded and the core sends batches, so a busy cluster never floods the page.
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type Context } from 'react';
import { clusterOutcomes, routeOutcomes, type RoutingEvent } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import {
  formatClock,
  formatDateTime,
  formatMs,
  formatTime,
  outcomeStyle,
  shownOutcomes,
  type ShownOutcome,
} from '../../shared/ui/format.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import { useOffline, type OfflineView } from '../../shared/view-mode.js';
import { ClusterFeed, ClusterFeedContext } from './cluster-feed.js';
import { False404sByClient } from './False404s.js';
import { emptyPoint, type EventFeed } from './event-feed.js';
import { StackedRateChart } from './StackedRateChart.js';
import { MAX_ROWS, RATE_SECONDS, RoutingFeed, RoutingFeedContext, type RatePoint } from './routing-feed.js';
import { clusterRow, mergeNewestFirst, portRow, sumSeries, type SourceChoice, type StreamRow } from './stream-rows.js';

export { addToSeries, MAX_ROWS, RATE_SECONDS } from './routing-feed.js';

/** The app's feed of a source, or one of the screen's own (rendered alone, in tests), started while `active`. */
function useFeed<F extends EventFeed<{ readonly seq: number }>>(context: Context<F | null>, create: () => F, active: boolean): F {
  const shared = useContext(context);
  const [own] = useState(() => (shared ? null : create()));
  useEffect(() => (active ? own?.start() : undefined), [own, active]);
  return shared ?? own!;
}

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
  return offline ? <RecordedRouting offline={offline} /> : <StreamingRouting />;
}

function zeroCounts(): Record<ShownOutcome, number> {
  return Object.fromEntries(shownOutcomes.map((o) => [o, 0])) as Record<ShownOutcome, number>;
}

/** Requests per second by outcome over the last RATE_SECONDS seconds of recorded events (any order). */
export function seriesFromEvents(events: readonly RoutingEvent[]): RatePoint[] {
  if (events.length === 0) return [];
  let last = -Infinity;
  for (const e of events) last = Math.max(last, Math.floor(e.at / 1000));
  const first = last - RATE_SECONDS + 1;
  const points: RatePoint[] = Array.from({ length: RATE_SECONDS }, (_, i) => emptyPoint(first + i));
  let earliest = last;
  for (const e of events) {
    const t = Math.floor(e.at / 1000);
    if (t < first) continue;
    earliest = Math.min(earliest, t);
    points[t - first]![e.outcome]++;
  }
  // Start at the first recorded second: the seconds before it were not recorded, not idle.
  return points.slice(earliest - first);
}

function useOutcomeFilter(rows: readonly StreamRow[]) {
  const [hidden, setHidden] = useState<ReadonlySet<ShownOutcome>>(new Set());
  const visible = useMemo(() => (hidden.size ? rows.filter((e) => !hidden.has(e.outcome)) : rows), [rows, hidden]);
  const inBuffer = useMemo(() => {
    const n = zeroCounts();
    for (const e of rows) n[e.outcome]++;
    return n;
  }, [rows]);
  const toggle = (o: ShownOutcome) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(o)) next.delete(o);
      else next.add(o);
      return next;
    });
  return { hidden, visible, inBuffer, toggle };
}

function OutcomeFilter({
  outcomes,
  hidden,
  inBuffer,
  toggle,
}: {
  outcomes: readonly ShownOutcome[];
  hidden: ReadonlySet<ShownOutcome>;
  inBuffer: Record<ShownOutcome, number>;
  toggle: (o: ShownOutcome) => void;
}) {
  return (
    <div className="outcome-filter" role="group" aria-label="Show outcomes">
      {outcomes.map((o) => (
        <button key={o} type="button" className="chip-toggle" aria-pressed={!hidden.has(o)} onClick={() => toggle(o)}>
          <span className="swatch" style={{ background: outcomeStyle[o].color }} aria-hidden="true" />
          {outcomeStyle[o].label} <span className="count">{inBuffer[o]}</span>
        </button>
      ))}
    </div>
  );
}

/** A snapshot's recent requests, as the live stream showed them (newest first, same filters). */
function RecordedRouting({ offline }: { offline: OfflineView }) {
  const client = useCoreClient();
  // Every recorded event for the chart; the table keeps the page's usual bound, newest first.
  const query = useQuery({ queryKey: [...queryKeys.events, 'recorded'], queryFn: () => client.getEvents() });
  const nameOf = useServerNames();
  const rows = useMemo(
    () =>
      (query.data?.events ?? [])
        .slice(-MAX_ROWS)
        .reverse()
        .map((e) => portRow(e, outcomeLabel, nameOf)),
    [query.data, nameOf],
  );
  const series = useMemo(() => seriesFromEvents(query.data?.events ?? []), [query.data]);
  const { hidden, visible, inBuffer, toggle } = useOutcomeFilter(rows);
  const recorded = offline.snapshot.events.length;
  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Routing at capture time</h2>
          <p className="muted">
            The requests the snapshot recorded before {formatDateTime(Date.parse(offline.snapshot.takenAt))}
            {recorded > rows.length ? ` (the newest ${rows.length.toLocaleString()} of ${recorded.toLocaleString()})` : ''}: the server a
            load balancer handed each to, what Peerscope decided, and who answered.
          </p>
        </div>
      </header>
      <div className="card chart-card">
        <h3>Requests per second by outcome (recorded)</h3>
        <RateChart series={series} live={false} />
      </div>
      <OutcomeFilter outcomes={routeOutcomes} hidden={hidden} inBuffer={inBuffer} toggle={toggle} />
      {query.isPending ? (
        <Loading what="recorded requests" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : rows.length === 0 ? (
        <Empty>The snapshot recorded no request: none had gone through the local port when it was taken.</Empty>
      ) : (
        <EventTable rows={visible} withSource={false} />
      )}
    </section>
  );
}

function StreamingRouting() {
  const client = useCoreClient();
  // Only whether there is a cluster source: the overview's totals change with every pushed batch (up
  // to twenty a second), and re-rendering the whole screen for each cost frames at 5,000 events/s.
  const overview = useQuery({
    queryKey: queryKeys.overview,
    queryFn: () => client.getOverview(),
    select: (o) => o.cluster !== undefined,
  });
  const hasCluster = overview.data === true;
  const [chosen, setChosen] = useState<SourceChoice | null>(null);
  // What the operator came for first: the whole cluster's traffic, when the core follows audit logs.
  const source: SourceChoice = hasCluster ? (chosen ?? 'cluster') : 'port';
  const portFeed = useFeed(RoutingFeedContext, () => new RoutingFeed(client), true);
  const clusterFeed = useFeed(ClusterFeedContext, () => new ClusterFeed(client), hasCluster);
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
    () => (source === 'port' ? port.series : source === 'cluster' ? cluster.series : sumSeries(port.series, cluster.series)),
    [source, port.series, cluster.series],
  );
  const shown = source === 'both' ? [port, cluster] : source === 'port' ? [port] : [cluster];
  const status = shown.some((s) => s.status === 'error') ? 'error' : shown.some((s) => s.status === 'loading') ? 'loading' : 'ready';
  const error = shown.find((s) => s.status === 'error')?.error;

  // Paused: the table keeps what it showed; the feeds (and the chart) go on.
  const [frozen, setFrozen] = useState<{ rows: readonly StreamRow[]; port: number; cluster: number } | null>(null);
  const rows = frozen?.rows ?? live;
  const heldWhilePaused = frozen
    ? (source === 'cluster' ? 0 : port.lastSeq - frozen.port) + (source === 'port' ? 0 : cluster.lastSeq - frozen.cluster)
    : 0;
  const { hidden, visible, inBuffer, toggle } = useOutcomeFilter(rows);

  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Live routing</h2>
          <p className="muted">{DESCRIPTION[source]}</p>
        </div>
        <div className="toolbar">
          {hasCluster && (
            <div className="source-switch" role="group" aria-label="Source">
              {SOURCES.map((s) => (
                <button
                  key={s.id}
                  type="button"
                  className="btn"
                  aria-pressed={source === s.id}
                  onClick={() => {
                    setChosen(s.id);
                    setFrozen(null);
                  }}
                >
                  {s.label}
                </button>
              ))}
            </div>
          )}
          <button
            type="button"
            className={`btn${frozen ? ' btn-primary' : ''}`}
            aria-pressed={frozen !== null}
            onClick={() => setFrozen(frozen ? null : { rows: live, port: port.lastSeq, cluster: cluster.lastSeq })}
          >
            {frozen ? 'Resume stream' : 'Pause stream'}
          </button>
          {frozen && heldWhilePaused > 0 && (
            <span className="muted" role="status">
              {heldWhilePaused.toLocaleString()} new while paused
            </span>
          )}
        </div>
      </header>

      <div className="card chart-card">
        <h3>Requests per second by outcome{hasCluster ? ` (${CHART_SOURCE[source]})` : ''}</h3>
        <RateChart series={series} live />
      </div>

      {hasCluster && source !== 'port' && <False404sByClient feed={clusterFeed} />}

      <OutcomeFilter outcomes={OUTCOMES_OF[source]} hidden={hidden} inBuffer={inBuffer} toggle={toggle} />

      {status === 'loading' && rows.length === 0 ? (
        <Loading what="recent requests" />
      ) : status === 'error' && rows.length === 0 ? (
        <ErrorState
          error={error}
          retry={() => {
            if (source !== 'cluster') void portFeed.load();
            if (source !== 'port') void clusterFeed.load();
          }}
        />
      ) : rows.length === 0 ? (
        <Empty>{EMPTY[source]}</Empty>
      ) : (
        <EventTable rows={visible} withSource={source === 'both'} />
      )}
    </section>
  );
}

function RateChart({ series: all, live }: { series: readonly RatePoint[]; live: boolean }) {
  // The current second is still filling: drawing it would show a false drop at the right edge.
  const currentSecond = Math.floor(Date.now() / 1000);
  const complete = live ? all.filter((p) => p.t < currentSecond) : all;
  // A completed second never changes again: the chart redraws once a second, not on every batch
  // (ten a second under load).
  const identity = `${complete.length}:${complete[0]?.t}:${complete.at(-1)?.t}`;
  const stable = useRef({ identity: '', series: complete });
  if (stable.current.identity !== identity) stable.current = { identity, series: complete };
  return <RateChartView series={stable.current.series} live={live} />;
}

function RateChartView({ series, live }: { series: readonly RatePoint[]; live: boolean }) {
  if (series.length < 2)
    return (
      <Empty>
        {live
          ? 'The rate chart fills in as requests arrive.'
          : 'The recorded requests span less than two seconds: too short for a rate chart.'}
      </Empty>
    );
  const latest = series.at(-1)!;
  const latestParts = shownOutcomes.filter((o) => (latest[o] ?? 0) > 0).map((o) => `${outcomeStyle[o].label} ${latest[o]}`);
  const label = `Request rate by outcome over the last ${series.length} seconds; at ${formatClock(latest.t * 1000)}: ${latestParts.length ? latestParts.join(', ') : 'no request'}`;
  return <StackedRateChart series={series} label={label} />;
}

const TEMPLATE = '7.5rem 9rem minmax(14rem, 3fr) 6rem 9.5rem 7.5rem 4.5rem 5.5rem';
const COLUMNS = ['time', 'client', 'request', 'handling', 'outcome', 'answered by', 'status', 'latency'];

function EventTable({ rows, withSource }: { rows: readonly StreamRow[]; withSource: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const nameOf = useServerNames();
  // Rows are keyed by position: a batch shifts every event down, and reusing the row elements (new
  // text) is far cheaper than unmounting and mounting every visible row ten times a second.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 30,
    overscan: 15,
  });
  if (rows.length === 0) return <Empty>No request matches the outcomes shown.</Empty>;
  const template = withSource ? `5rem ${TEMPLATE}` : TEMPLATE;
  return (
    <div className="stream-table" role="table" aria-label="Requests, newest first">
      <div className="stream-row stream-header" role="row" style={{ gridTemplateColumns: template }}>
        {(withSource ? ['source', ...COLUMNS] : COLUMNS).map((h) => (
          <div role="columnheader" key={h}>
            {h}
          </div>
        ))}
      </div>
      <div className="stream-scroll" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Request stream, scroll with the arrow keys">
        <div className="matrix-virtual" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = rows[v.index]!;
            const status = e.status ?? 0;
            return (
              <div
                key={v.index}
                role="row"
                className={`stream-row outcome-${e.outcome}`}
                data-outcome={e.outcome}
                data-source={e.source}
                style={{ transform: `translateY(${v.start}px)`, gridTemplateColumns: template }}
              >
                {withSource && (
                  <div role="cell" className="muted">
                    {e.source}
                  </div>
                )}
                <div role="cell" className="mono muted">
                  {formatTime(e.at)}
                </div>
                <div role="cell" className="ellipsis" title={e.userAgent}>
                  {e.userAgent.split(/[ /]/)[0] || '—'}
                </div>
                <div role="cell" className="mono ellipsis" title={`${e.method} ${e.path}`}>
                  <span className="method">{e.method}</span> {e.path}
                </div>
                <div role="cell" title={e.handling ?? undefined}>
                  {e.handling ? nameOf(e.handling) : '—'}
                </div>
                <div role="cell">
                  <span className="outcome-pill" style={{ borderColor: outcomeStyle[e.outcome].color }}>
                    <span className="swatch" style={{ background: outcomeStyle[e.outcome].color }} aria-hidden="true" />
                    {e.outcomeText}
                  </span>
                </div>
                <div role="cell" title={e.answeredBy}>
                  {nameOf(e.answeredBy)}
                </div>
                <div role="cell" className={`mono ${status >= 500 ? 'error-text' : status >= 400 ? 'warn-text' : ''}`}>
                  {e.status ?? '—'}
                </div>
                <div role="cell" className="mono muted">
                  {formatMs(e.latencyMs)}
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
