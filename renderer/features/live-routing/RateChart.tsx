// Requests per second stacked by outcome: from the live feeds (redrawn once a completed second is in)
// or from a snapshot's recorded events.
import { useRef } from 'react';
import type { RoutingEvent } from '../../../proxy-core/contract/index.js';
import { formatClock, outcomeStyle, shownOutcomes } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import { emptyPoint } from './event-feed.js';
import { RATE_SECONDS, type RatePoint } from './routing-feed.js';
import { StackedRateChart } from './StackedRateChart.js';

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

export function RateChart({ series: all, live }: { series: readonly RatePoint[]; live: boolean }) {
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
