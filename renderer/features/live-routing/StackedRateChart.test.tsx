// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installLayoutStubs } from '../../test/render.js';
import type { RatePoint } from './routing-feed.js';
import { outcomeStyle } from '../../shared/ui/format.js';
import { rateChartGeometry, StackedRateChart } from './StackedRateChart.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const T0 = 1_800_000_000; // seconds, a round minute
function point(t: number, local: number, rerouted: number, notfound = 0): RatePoint {
  return { t, local, rerouted, notfound, unavailable: 0, 'discovery-merged': 0, 'discovery-own': 0, 'non-resource': 0, rejected: 0 };
}
// 60 seconds: 100 local a second, 20 rerouted, a burst of 404s in the middle.
const series = Array.from({ length: 60 }, (_, i) => point(T0 + i, 100, 20, i >= 30 && i < 35 ? 40 : 0));

/** The y values an SVG path visits (the numbers after each x in "M x,y L x,y C …"). */
function pathYs(path: string): number[] {
  const numbers = path.match(/-?\d+(\.\d+)?(e-?\d+)?/g)!.map(Number);
  return numbers.filter((_, i) => i % 2 === 1);
}

describe('rateChartGeometry', () => {
  it('stacks only the outcomes present, in the legend order, and scales to the peak', () => {
    const g = rateChartGeometry(series, 800);
    expect(g.shown).toEqual(['local', 'rerouted', 'notfound']);
    expect(g.areas.map((a) => a.outcome)).toEqual(['local', 'rerouted', 'notfound']);
    // Peak 160/s: the axis is nice (0…160 or 0…200) and every area stays inside the plot.
    expect(g.yTicks[0]).toEqual({ value: 0, y: g.plot.bottom });
    expect(g.yTicks.at(-1)!.value).toBeGreaterThanOrEqual(160);
    for (const a of g.areas) for (const y of pathYs(a.path)) expect(y).toBeGreaterThanOrEqual(g.plot.top - 0.5);
    // The local layer sits on the baseline; the 404 layer is drawn only over its burst.
    expect(Math.max(...pathYs(g.areas[0]!.path))).toBeCloseTo(g.plot.bottom, 5);
  });

  it('puts time ticks on round clock times across the plot, at most as many as fit', () => {
    const wide = rateChartGeometry(series, 1_200);
    const narrow = rateChartGeometry(series, 300);
    expect(narrow.xTicks.length).toBeLessThan(wide.xTicks.length);
    expect(narrow.xTicks.length).toBeGreaterThanOrEqual(2);
    for (const g of [wide, narrow]) {
      const step = g.xTicks[1]!.t - g.xTicks[0]!.t;
      expect([5, 10, 15, 30]).toContain(step);
      for (const t of g.xTicks) {
        expect(t.t % step).toBe(0);
        expect(t.x).toBeGreaterThanOrEqual(g.plot.left);
        expect(t.x).toBeLessThanOrEqual(g.plot.right);
      }
    }
  });

  it('draws a flat zero axis when nothing happened', () => {
    const quiet = rateChartGeometry([point(T0, 0, 0), point(T0 + 1, 0, 0)], 600);
    expect(quiet.areas).toEqual([]);
    expect(quiet.yTicks.map((t) => t.value)).toEqual([0, 0.25, 0.5, 0.75, 1].filter(Number.isInteger));
  });
});

describe('StackedRateChart', () => {
  it('draws an area per outcome and a labelled image', () => {
    render(<StackedRateChart series={series} label="Request rate by outcome" />);
    expect(screen.getByRole('img', { name: 'Request rate by outcome' })).toBeVisible();
    expect([...document.querySelectorAll('.rate-area')].map((p) => p.getAttribute('data-outcome'))).toEqual([
      'local',
      'rerouted',
      'notfound',
    ]);
  });

  it('draws false 404s (the cluster source) as an outcome of their own, in their colour, with a legend', () => {
    const withFalse404s = series.map((p, i) => ({ ...p, 'false-404': i >= 40 ? 12 : 0 }));
    render(<StackedRateChart series={withFalse404s} label="rate" />);
    const area = document.querySelector('.rate-area[data-outcome="false-404"]')!;
    expect(area.getAttribute('fill')).toBe(outcomeStyle['false-404'].color);
    expect(outcomeStyle['false-404'].color).not.toBe(outcomeStyle.notfound.color);
    const legend = screen.getByRole('list', { name: 'Outcomes in the chart' });
    expect([...legend.querySelectorAll('li')].map((li) => li.textContent?.trim())).toEqual([
      'false 404',
      '404 not found',
      'rerouted',
      'local',
    ]);
    expect(rateChartGeometry(withFalse404s, 800).shown).toEqual(['local', 'rerouted', 'notfound', 'false-404']);
  });

  it('shows the second under the pointer with each outcome’s rate', () => {
    render(<StackedRateChart series={series} label="rate" />);
    const svg = document.querySelector('.rate-chart svg')!;
    const g = rateChartGeometry(series, 800);
    // jsdom has no layout: the SVG's box starts at 0, so clientX is the x in the plot.
    fireEvent.pointerMove(svg, { clientX: g.x(T0 + 32) });
    const tip = document.querySelector('.chart-tooltip')!;
    expect(tip.textContent).toContain('404 not found 40/s');
    expect(tip.textContent).toContain('local 100/s');
    expect(tip.textContent).toContain('rerouted 20/s');
    fireEvent.pointerLeave(svg);
    expect(document.querySelector('.chart-tooltip')).toBeNull();
  });
});
