// Live routing: every request through the local port as it happens (client → handling server →
// outcome → the server that answered), and the request rate stacked by outcome. The buffer is bounded
// and the core sends batches, so a busy port never floods the page.
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { routeOutcomes, type RouteOutcome, type RoutingEvent } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../src/client-context.js';
import { formatClock, formatDateTime, formatMs, formatTime, outcomeStyle } from '../../src/ui/format.js';
import { Empty, ErrorState, Loading } from '../../src/ui/states.js';
import { useOffline, type OfflineView } from '../../src/view-mode.js';
import { StackedRateChart } from './StackedRateChart.js';
import { MAX_ROWS, RATE_SECONDS, RoutingFeed, RoutingFeedContext, type RatePoint } from './routing-feed.js';

export { addToSeries, MAX_ROWS, RATE_SECONDS } from './routing-feed.js';

function useRoutingFeed(): RoutingFeed {
  const shared = useContext(RoutingFeedContext);
  const client = useCoreClient();
  const [own] = useState(() => (shared ? null : new RoutingFeed(client)));
  useEffect(() => own?.start(), [own]);
  return shared ?? own!;
}

export function LiveRouting() {
  const offline = useOffline();
  return offline ? <RecordedRouting offline={offline} /> : <StreamingRouting />;
}

function zeroCounts(): Record<RouteOutcome, number> {
  return Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as Record<RouteOutcome, number>;
}

/** Requests per second by outcome over the last RATE_SECONDS seconds of recorded events (any order). */
export function seriesFromEvents(events: readonly RoutingEvent[]): RatePoint[] {
  if (events.length === 0) return [];
  let last = -Infinity;
  for (const e of events) last = Math.max(last, Math.floor(e.at / 1000));
  const first = last - RATE_SECONDS + 1;
  const points: RatePoint[] = Array.from({ length: RATE_SECONDS }, (_, i) => ({ t: first + i, ...zeroCounts() }));
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

function useOutcomeFilter(rows: readonly RoutingEvent[]) {
  const [hidden, setHidden] = useState<ReadonlySet<RouteOutcome>>(new Set());
  const visible = useMemo(() => (hidden.size ? rows.filter((e) => !hidden.has(e.outcome)) : rows), [rows, hidden]);
  const inBuffer = useMemo(() => {
    const n = zeroCounts();
    for (const e of rows) n[e.outcome]++;
    return n;
  }, [rows]);
  const toggle = (o: RouteOutcome) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(o)) next.delete(o);
      else next.add(o);
      return next;
    });
  return { hidden, visible, inBuffer, toggle };
}

function OutcomeFilter({
  hidden,
  inBuffer,
  toggle,
}: {
  hidden: ReadonlySet<RouteOutcome>;
  inBuffer: Record<RouteOutcome, number>;
  toggle: (o: RouteOutcome) => void;
}) {
  return (
    <div className="outcome-filter" role="group" aria-label="Show outcomes">
      {routeOutcomes.map((o) => (
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
  const rows = useMemo(() => (query.data?.events ?? []).slice(-MAX_ROWS).reverse(), [query.data]);
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
      <OutcomeFilter hidden={hidden} inBuffer={inBuffer} toggle={toggle} />
      {query.isPending ? (
        <Loading what="recorded requests" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : rows.length === 0 ? (
        <Empty>The snapshot recorded no request: none had gone through the local port when it was taken.</Empty>
      ) : (
        <EventTable events={visible} />
      )}
    </section>
  );
}

function StreamingRouting() {
  const feed = useRoutingFeed();
  const state = useSyncExternalStore(feed.subscribe, feed.getState);
  // Paused: the table keeps what it showed; the feed (and the chart) go on.
  const [frozen, setFrozen] = useState<readonly RoutingEvent[] | null>(null);
  const rows = frozen ?? state.rows;
  const heldWhilePaused = frozen ? state.lastSeq - (frozen[0]?.seq ?? state.lastSeq) : 0;
  const { hidden, visible, inBuffer, toggle } = useOutcomeFilter(rows);

  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Live routing</h2>
          <p className="muted">
            Every request through the local port: the server a load balancer handed it to, what Peerscope decided, and who answered.
          </p>
        </div>
        <div className="toolbar">
          <button
            type="button"
            className={`btn${frozen ? ' btn-primary' : ''}`}
            aria-pressed={frozen !== null}
            onClick={() => setFrozen(frozen ? null : state.rows)}
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
        <h3>Requests per second by outcome</h3>
        <RateChart series={state.series} live />
      </div>

      <OutcomeFilter hidden={hidden} inBuffer={inBuffer} toggle={toggle} />

      {state.status === 'loading' && rows.length === 0 ? (
        <Loading what="recent requests" />
      ) : state.status === 'error' && rows.length === 0 ? (
        <ErrorState error={state.error} retry={() => void feed.load()} />
      ) : rows.length === 0 ? (
        <Empty>No request has gone through the local port yet. Point kubectl at it, or start traffic.</Empty>
      ) : (
        <EventTable events={visible} />
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
  const latestParts = routeOutcomes.filter((o) => latest[o] > 0).map((o) => `${outcomeStyle[o].label} ${latest[o]}`);
  const label = `Request rate by outcome over the last ${series.length} seconds; at ${formatClock(latest.t * 1000)}: ${latestParts.length ? latestParts.join(', ') : 'no request'}`;
  return <StackedRateChart series={series} label={label} />;
}

const TEMPLATE = '7.5rem 9rem minmax(14rem, 3fr) 6rem 9.5rem 7.5rem 4.5rem 5.5rem';

function EventTable({ events }: { events: readonly RoutingEvent[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // Rows are keyed by position: a batch shifts every event down, and reusing the row elements (new
  // text) is far cheaper than unmounting and mounting every visible row ten times a second.
  const virtualizer = useVirtualizer({
    count: events.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 30,
    overscan: 15,
  });
  if (events.length === 0) return <Empty>No request matches the outcomes shown.</Empty>;
  return (
    <div className="stream-table" role="table" aria-label="Requests, newest first">
      <div className="stream-row stream-header" role="row" style={{ gridTemplateColumns: TEMPLATE }}>
        {['time', 'client', 'request', 'handling', 'outcome', 'answered by', 'status', 'latency'].map((h) => (
          <div role="columnheader" key={h}>
            {h}
          </div>
        ))}
      </div>
      <div className="stream-scroll" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Request stream, scroll with the arrow keys">
        <div className="matrix-virtual" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = events[v.index]!;
            return (
              <div
                key={v.index}
                role="row"
                className={`stream-row outcome-${e.outcome}`}
                data-outcome={e.outcome}
                style={{ transform: `translateY(${v.start}px)`, gridTemplateColumns: TEMPLATE }}
              >
                <div role="cell" className="mono muted">
                  {formatTime(e.at)}
                </div>
                <div role="cell" className="ellipsis" title={e.userAgent}>
                  {e.userAgent.split(/[ /]/)[0] || '—'}
                </div>
                <div role="cell" className="mono ellipsis" title={`${e.method} ${e.path}`}>
                  <span className="method">{e.method}</span> {e.path}
                </div>
                <div role="cell">{e.handling ?? '—'}</div>
                <div role="cell">
                  <span className="outcome-pill" style={{ borderColor: outcomeStyle[e.outcome].color }}>
                    <span className="swatch" style={{ background: outcomeStyle[e.outcome].color }} aria-hidden="true" />
                    {e.outcome === 'rerouted' && e.answeredBy ? `→ ${e.answeredBy}` : outcomeStyle[e.outcome].label}
                  </span>
                </div>
                <div role="cell">{e.answeredBy ?? 'peerscope'}</div>
                <div role="cell" className={`mono ${e.status >= 500 ? 'error-text' : e.status >= 400 ? 'warn-text' : ''}`}>
                  {e.status}
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
