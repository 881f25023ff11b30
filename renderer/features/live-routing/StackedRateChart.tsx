// The request rate stacked by outcome, drawn as plain SVG with d3-scale and d3-shape for the geometry.
// Not recharts: this chart redraws every second while up to 10,000 requests a second stream in, and a
// recharts redraw (its store, selectors and layout) took 30–60 ms of one frame on two cores, above the
// 50 ms frame budget under load; this one takes about a millisecond (docs/decisions.md).
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { area, curveMonotoneX, stack, type SeriesPoint } from 'd3-shape';
import { memo, useMemo, useState } from 'react';
import { clockTickBudget, clockTicks } from '../../shared/ui/clock-ticks.js';
import { formatClock, outcomeStyle, shownOutcomes, type ShownOutcome } from '../../shared/ui/format.js';
import { useWidth } from '../../shared/ui/use-width.js';
import type { RatePoint } from './routing-feed.js';

const HEIGHT = 180;
const MARGIN = { top: 8, right: 16, bottom: 22, left: 44 };

export interface RateChartGeometry {
  readonly shown: ShownOutcome[];
  readonly areas: { outcome: ShownOutcome; path: string }[];
  readonly xTicks: { t: number; x: number }[];
  readonly yTicks: { value: number; y: number }[];
  readonly x: ScaleLinear<number, number>;
  readonly plot: { left: number; right: number; top: number; bottom: number };
}

/** Everything the SVG draws, from the series and the chart's width (pure, so it is tested alone). */
export function rateChartGeometry(series: readonly RatePoint[], width: number): RateChartGeometry {
  const shown = shownOutcomes.filter((o) => series.some((p) => (p[o] ?? 0) > 0));
  const plot = {
    left: MARGIN.left,
    right: Math.max(MARGIN.left + 10, width - MARGIN.right),
    top: MARGIN.top,
    bottom: HEIGHT - MARGIN.bottom,
  };
  const first = series[0]?.t ?? 0;
  const last = series.at(-1)?.t ?? first;
  const x = scaleLinear().domain([first, last]).range([plot.left, plot.right]);
  let peak = 0;
  for (const p of series) {
    let total = 0;
    for (const o of shown) total += p[o] ?? 0;
    peak = Math.max(peak, total);
  }
  const y = scaleLinear()
    .domain([0, Math.max(1, peak)])
    .range([plot.bottom, plot.top])
    .nice(4);
  const layers = stack<RatePoint, ShownOutcome>()
    .keys(shown)
    .value((p, o) => p[o] ?? 0)(series as RatePoint[]);
  const shape = area<SeriesPoint<RatePoint>>()
    .x((d) => x(d.data.t))
    .y0((d) => y(d[0]))
    .y1((d) => y(d[1]))
    .curve(curveMonotoneX);
  return {
    shown,
    areas: layers.map((layer) => ({ outcome: layer.key, path: shape(layer) ?? '' })),
    xTicks: clockTicks(first, last, clockTickBudget(width), 1_000).map((t) => ({ t, x: x(t) })),
    yTicks: y
      .ticks(4)
      .filter(Number.isInteger)
      .map((value) => ({ value, y: y(value) })),
    x,
    plot,
  };
}

export const StackedRateChart = memo(function StackedRateChart({ series, label }: { series: readonly RatePoint[]; label: string }) {
  const [ref, width] = useWidth<HTMLDivElement>(800);
  const geometry = useMemo(() => rateChartGeometry(series, width), [series, width]);
  const [hover, setHover] = useState<number | null>(null);
  const { areas, xTicks, yTicks, plot, shown, x } = geometry;
  const point = hover === null ? undefined : series[hover];

  const onPointerMove = (e: React.PointerEvent<SVGSVGElement>) => {
    const px = e.clientX - e.currentTarget.getBoundingClientRect().left;
    if (px < plot.left || px > plot.right || series.length === 0) return setHover(null);
    const first = series[0]!.t;
    const t = Math.round(x.invert(px));
    setHover(Math.min(series.length - 1, Math.max(0, t - first)));
  };

  return (
    <>
      <div className="chart rate-chart" role="img" aria-label={label} ref={ref}>
        <svg width={width} height={HEIGHT} onPointerMove={onPointerMove} onPointerLeave={() => setHover(null)} aria-hidden="true">
          <g className="grid">
            {yTicks.map((t) => (
              <line key={t.value} x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} strokeDasharray="3 3" />
            ))}
          </g>
          {areas.map((a) => (
            <path
              key={a.outcome}
              className="rate-area"
              data-outcome={a.outcome}
              d={a.path}
              fill={outcomeStyle[a.outcome].color}
              fillOpacity={0.55}
              stroke={outcomeStyle[a.outcome].color}
            />
          ))}
          <g className="axis">
            <line className="axis-line" x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} />
            {xTicks.map((t) => (
              <text key={t.t} x={t.x} y={plot.bottom + 15} textAnchor="middle">
                {formatClock(t.t * 1000)}
              </text>
            ))}
            {yTicks.map((t) => (
              <text key={t.value} x={plot.left - 6} y={t.y + 4} textAnchor="end">
                {t.value.toLocaleString()}
              </text>
            ))}
          </g>
          {point && <line className="hover-line" x1={x(point.t)} x2={x(point.t)} y1={plot.top} y2={plot.bottom} />}
        </svg>
        {point && (
          <div className="chart-tooltip" style={{ left: Math.max(0, Math.min(x(point.t) + 12, width - 190)), top: plot.top }}>
            <strong>{formatClock(point.t * 1000)}</strong>
            <ul>
              {[...shown].reverse().map((o) => (
                <li key={o}>
                  <span className="swatch" style={{ background: outcomeStyle[o].color }} aria-hidden="true" /> {outcomeStyle[o].label}{' '}
                  <b>{(point[o] ?? 0).toLocaleString()}/s</b>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <ul className="legend rate-legend" aria-label="Outcomes in the chart">
        {[...shown].reverse().map((o) => (
          <li key={o} data-outcome={o}>
            <span className="swatch" style={{ background: outcomeStyle[o].color }} aria-hidden="true" /> {outcomeStyle[o].label}
          </li>
        ))}
      </ul>
    </>
  );
});
