// Live routing: every request through the local port as it happens (client → handling server →
// outcome → the server that answered), and the request rate stacked by outcome. The buffer is bounded
// and the core sends batches, so a busy port never floods the page.
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { routeOutcomes, type RouteOutcome, type RoutingEvent } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../src/client-context.js';
import { formatClock, formatMs, formatTime, outcomeStyle } from '../../src/ui/format.js';
import { Empty, ErrorState, Loading } from '../../src/ui/states.js';

/** Events kept on screen; older ones fall off. */
export const MAX_ROWS = 2_000;
/** Seconds of rate history in the chart. */
export const RATE_SECONDS = 120;

export type RatePoint = { t: number } & Record<RouteOutcome, number>;

function emptyPoint(t: number): RatePoint {
  return { t, ...(Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as Record<RouteOutcome, number>) };
}

/** Adds a batch's counts to the bucket of the second it arrived in; keeps RATE_SECONDS buckets. */
export function addToSeries(series: RatePoint[], at: number, counts: Record<RouteOutcome, number>): RatePoint[] {
  const second = Math.floor(at / 1000);
  const out = series.filter((p) => p.t > second - RATE_SECONDS);
  let last = out.at(-1);
  if (!last || last.t !== second) {
    // Seconds without a batch had no requests: fill them so the chart shows the gap as zero.
    for (let t = last ? last.t + 1 : second; t < second; t++) out.push(emptyPoint(t));
    last = emptyPoint(second);
    out.push(last);
  } else {
    last = { ...last };
    out[out.length - 1] = last;
  }
  for (const o of routeOutcomes) last[o] += counts[o];
  return out.slice(-RATE_SECONDS);
}

export function LiveRouting() {
  const client = useCoreClient();
  const initial = useQuery({ queryKey: queryKeys.events, queryFn: () => client.getEvents({ limit: 500 }), staleTime: Infinity, gcTime: 0 });
  const [rows, setRows] = useState<RoutingEvent[]>([]);
  const [series, setSeries] = useState<RatePoint[]>([]);
  const [paused, setPaused] = useState(false);
  const [heldWhilePaused, setHeld] = useState(0);
  const [hidden, setHidden] = useState<ReadonlySet<RouteOutcome>>(new Set());
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const lastSeq = useRef(0);

  useEffect(() => {
    if (!initial.data) return;
    setRows((current) => (current.length ? current : [...initial.data.events].reverse().slice(0, MAX_ROWS)));
    lastSeq.current = Math.max(lastSeq.current, initial.data.lastSeq);
  }, [initial.data]);

  useEffect(() => {
    return client.subscribe((event) => {
      if (event.type !== 'routing') return;
      setSeries((s) => addToSeries(s, Date.now(), event.counts));
      const fresh = event.events.filter((e) => e.seq > lastSeq.current);
      if (fresh.length === 0) return;
      lastSeq.current = fresh.at(-1)!.seq;
      if (pausedRef.current) {
        setHeld((n) => n + event.count);
        return;
      }
      setRows((current) => [...fresh.reverse(), ...current].slice(0, MAX_ROWS));
    });
  }, [client]);

  const visible = useMemo(() => (hidden.size ? rows.filter((e) => !hidden.has(e.outcome)) : rows), [rows, hidden]);
  const inBuffer = useMemo(() => {
    const n = Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as Record<RouteOutcome, number>;
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

  return (
    <section className="panel routing" aria-labelledby="routing-title">
      <header className="panel-head">
        <div>
          <h2 id="routing-title">Live routing</h2>
          <p className="muted">Every request through the local port: the server a load balancer handed it to, what Peerscope decided, and who answered.</p>
        </div>
        <div className="toolbar">
          <button type="button" className={`btn${paused ? ' btn-primary' : ''}`} aria-pressed={paused} onClick={() => {
            if (paused) setHeld(0);
            setPaused(!paused);
          }}>
            {paused ? 'Resume stream' : 'Pause stream'}
          </button>
          {paused && heldWhilePaused > 0 && <span className="muted" role="status">{heldWhilePaused.toLocaleString()} new while paused</span>}
        </div>
      </header>

      <div className="card chart-card">
        <h3>Requests per second by outcome</h3>
        <RateChart series={series} />
      </div>

      <div className="outcome-filter" role="group" aria-label="Show outcomes">
        {routeOutcomes.map((o) => (
          <button key={o} type="button" className="chip-toggle" aria-pressed={!hidden.has(o)} onClick={() => toggle(o)}>
            <span className="swatch" style={{ background: outcomeStyle[o].color }} aria-hidden="true" />
            {outcomeStyle[o].label} <span className="count">{inBuffer[o]}</span>
          </button>
        ))}
      </div>

      {initial.isPending ? (
        <Loading what="recent requests" />
      ) : initial.isError ? (
        <ErrorState error={initial.error} retry={() => void initial.refetch()} />
      ) : rows.length === 0 ? (
        <Empty>No request has gone through the local port yet. Point kubectl at it, or start traffic.</Empty>
      ) : (
        <EventTable events={visible} />
      )}
    </section>
  );
}

function RateChart({ series }: { series: RatePoint[] }) {
  const shown = routeOutcomes.filter((o) => series.some((p) => p[o] > 0));
  if (series.length < 2) return <Empty>The rate chart fills in as requests arrive.</Empty>;
  return (
    <div className="chart" role="img" aria-label={`Request rate by outcome over the last ${series.length} seconds`}>
      <ResponsiveContainer width="100%" height={180}>
        <AreaChart data={series} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" className="grid" vertical={false} />
          <XAxis dataKey="t" tickFormatter={(t: number) => formatClock(t * 1000)} minTickGap={48} className="axis" />
          <YAxis allowDecimals={false} width={44} className="axis" />
          <Tooltip labelFormatter={(t) => formatClock(Number(t) * 1000)} isAnimationActive={false} wrapperClassName="tooltip" />
          {shown.map((o) => (
            <Area key={o} type="monotone" dataKey={o} name={outcomeStyle[o].label} stackId="rate" stroke={outcomeStyle[o].color} fill={outcomeStyle[o].color} fillOpacity={0.55} isAnimationActive={false} />
          ))}
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}

const TEMPLATE = '7.5rem 9rem minmax(14rem, 3fr) 6rem 9.5rem 7.5rem 4.5rem 5.5rem';

function EventTable({ events }: { events: RoutingEvent[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scrollRef.current, estimateSize: () => 30, getItemKey: (i) => events[i]?.seq ?? i, overscan: 15 });
  if (events.length === 0) return <Empty>No request matches the outcomes shown.</Empty>;
  return (
    <div className="stream-table" role="table" aria-label="Requests, newest first">
      <div className="stream-row stream-header" role="row" style={{ gridTemplateColumns: TEMPLATE }}>
        {['time', 'client', 'request', 'handling', 'outcome', 'answered by', 'status', 'latency'].map((h) => (
          <div role="columnheader" key={h}>{h}</div>
        ))}
      </div>
      <div className="stream-scroll" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Request stream, scroll with the arrow keys">
        <div className="matrix-virtual" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = events[v.index]!;
            return (
              <div key={e.seq} role="row" className={`stream-row outcome-${e.outcome}`} data-outcome={e.outcome} style={{ transform: `translateY(${v.start}px)`, gridTemplateColumns: TEMPLATE }}>
                <div role="cell" className="mono muted">{formatTime(e.at)}</div>
                <div role="cell" className="ellipsis" title={e.userAgent}>{e.userAgent.split(/[ /]/)[0] || '—'}</div>
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
                <div role="cell" className={`mono ${e.status >= 500 ? 'error-text' : e.status >= 400 ? 'warn-text' : ''}`}>{e.status}</div>
                <div role="cell" className="mono muted">{formatMs(e.latencyMs)}</div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
