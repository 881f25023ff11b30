// Tick positions for time axes, chosen by us rather than by recharts: with `minTickGap` recharts
// measures every candidate label in the DOM (a hidden span and getBoundingClientRect per label) on
// every redraw — a third of the live rate chart's redraw under a busy feed. Round clock steps also
// read better than whichever labels happened to fit.

/** Steps a clock axis may use, in seconds (converted to the axis's unit by clockTicks). */
const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 21_600, 43_200, 86_400];

/**
 * Ticks at round clock times (multiples of the smallest step that keeps at most `maxTicks`) within
 * [from, to]. `unitMs` is how many milliseconds one axis unit is: 1_000 for seconds, 1 for ms.
 */
export function clockTicks(from: number, to: number, maxTicks: number, unitMs = 1): number[] {
  if (!(to > from) || maxTicks < 1) return Number.isFinite(from) ? [from] : [];
  const spanS = ((to - from) * unitMs) / 1_000;
  const stepS = STEPS_S.find((s) => spanS / s <= maxTicks) ?? Math.ceil(spanS / maxTicks / 86_400) * 86_400;
  const step = (stepS * 1_000) / unitMs;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** How many clock labels ("12:34:56", ~48 px with the gap) fit in a chart of this width. */
export function clockTickBudget(widthPx: number): number {
  return Math.max(2, Math.floor(widthPx / 110));
}
