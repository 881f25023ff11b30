// The rollout report's charts as inline SVG text (report-html.ts): each server's release and health
// over time as a swim lane, the false 404s per minute stacked by client, and the requests per minute
// stacked by outcome. d3-scale and d3-shape give the geometry, as the app's own charts do; no chart
// library and no script goes into the file (docs/decisions.md). Colours are SVG attributes, not
// style attributes, so a strict Content-Security-Policy admits them. Times are UTC.
import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { area, curveStepAfter, stack } from 'd3-shape';
import type { RecordingReport } from '../../contract/recording-report.js';
import { canonicalRelease } from '../releases/release-names.js';
import { serverLabel, shownName } from '../../contract/servers.js';
import { clientOf, formatTime, serverNamer } from './report-text.js';

const WIDTH = 960;
const MARGIN = { top: 22, right: 16, bottom: 24, left: 120 };
const LANE = 30;
const CHART_HEIGHT = 200;
/** Past this many clients, the rest are one band ("other clients"): a legend of hundreds reads as none. */
const MAX_CLIENTS = 8;
const LEGEND_COLUMNS = 2;
const MINUTE_MS = 60_000;

export const HEALTH_COLORS: Record<string, string> = {
  ready: '#3fa66b',
  unknown: '#c9cdd2',
  'not-ready': '#e8a23a',
  draining: '#d4b84a',
  unreachable: '#e5534b',
  gone: '#6e7781',
};
export const OUTCOME_COLORS: Record<string, string> = {
  local: '#3fa66b',
  rerouted: '#5b7cfa',
  notfound: '#e8a23a',
  'false-404': '#d6336c',
  unavailable: '#e5534b',
  'discovery-merged': '#a371f7',
  'discovery-own': '#7d5fc9',
  'non-resource': '#8b949e',
  rejected: '#b03a2e',
  undetermined: '#9a8c5a',
  'not-judged': '#6e7781',
};
/** Who counted the requests of a chart. */
const SOURCE_WORDS: Record<string, string> = {
  port: 'through the port',
  'audit-log': 'in the servers’ audit logs',
  'audit-webhook': 'from the servers’ audit webhook',
};
const PALETTE = ['#d6336c', '#5b7cfa', '#e8a23a', '#3fa66b', '#a371f7', '#1f9eb3', '#b05f2e', '#6e7781', '#9a8c5a'];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);
const n = (x: number) => Math.round(x * 10) / 10;

/** Ticks in UTC, 24-hour: to the second when the axis spans under ten minutes (a short demo), else to the minute. */
function timeAxis(x: ReturnType<typeof scaleUtc<number>>, y: number): string {
  const ticks = x.ticks(8);
  const [start, end] = x.domain();
  const seconds = (end?.getTime() ?? 0) - (start?.getTime() ?? 0) < 10 * 60_000;
  return ticks
    .map(
      (t) =>
        `<line x1="${n(x(t))}" x2="${n(x(t))}" y1="${MARGIN.top}" y2="${y}" stroke="#d0d7de" stroke-width="0.5"/>` +
        `<text x="${n(x(t))}" y="${y + 14}" text-anchor="middle" class="tick">${seconds ? t.toISOString().slice(11, 19) : hhmm(t.getTime())}</text>`,
    )
    .join('');
}

/** One lane per server: its health as coloured spans, its release written where it starts, the rollout steps as marks on top. */
export function swimLanesSvg(r: RecordingReport): string {
  const height = MARGIN.top + r.servers.length * LANE + MARGIN.bottom;
  const x = scaleUtc()
    .domain([new Date(r.from), new Date(r.to)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  const parts: string[] = [];
  r.servers.forEach((s, i) => {
    const top = MARGIN.top + i * LANE;
    // The lane is labelled by host name (room is short); the label's tooltip and the spans' have the identity too.
    const label = serverLabel(s.server, s.displayName);
    const shown = escapeXml(shownName({ name: s.server, displayName: s.displayName }));
    parts.push(
      `<g><title>${escapeXml(label)}</title><text x="${MARGIN.left - 6}" y="${top + LANE / 2 + 4}" text-anchor="end" class="label">${shown}</text></g>`,
    );
    const health = s.changes.filter((c) => c.kind === 'health' || (c.kind === 'membership' && c.value === 'gone'));
    health.forEach((c, j) => {
      const end = health[j + 1]?.at ?? r.to;
      const state = c.kind === 'membership' ? 'gone' : c.value;
      const x0 = x(new Date(Math.max(c.at, r.from)));
      const w = Math.max(1, x(new Date(end)) - x0);
      parts.push(
        `<rect x="${n(x0)}" y="${top + 4}" width="${n(w)}" height="${LANE - 12}" fill="${HEALTH_COLORS[state] ?? '#c9cdd2'}">` +
          `<title>${escapeXml(`${label} ${state} from ${formatTime(c.at)}`)}</title></rect>`,
      );
    });
    for (const c of s.changes.filter((c) => c.kind === 'release')) {
      const at = n(x(new Date(Math.max(c.at, r.from))));
      const release = canonicalRelease(c.value);
      // Written after its mark, or before it where it would run past the lane's end.
      const fits = at + 3 + release.length * 7 <= WIDTH - MARGIN.right;
      parts.push(
        `<line x1="${at}" x2="${at}" y1="${top + 2}" y2="${top + LANE - 6}" stroke="#24292f" stroke-width="1.5"/>` +
          `<text x="${fits ? at + 3 : at - 3}" y="${top + LANE / 2 + 2}"${fits ? '' : ' text-anchor="end"'} class="release">${escapeXml(release)}</text>`,
      );
    }
  });
  const named = serverNamer(r);
  for (const step of r.steps) {
    const at = n(x(new Date(step.at)));
    parts.push(
      `<path d="M${at - 5},${MARGIN.top - 12}L${at + 5},${MARGIN.top - 12}L${at},${MARGIN.top - 4}Z" fill="#24292f">` +
        `<title>${escapeXml(`${formatTime(step.at)} ${step.subject ? `${named(step.subject)}: ` : ''}${step.value}`)}</title></path>`,
    );
  }
  return svg(height, 'Each server’s release and health over time', timeAxis(x, height - MARGIN.bottom) + parts.join(''));
}

/** A stacked chart of per-minute counts: bars (one per minute) or an area; `keys` bottom to top, with their colours. */
function stackedSvg(
  title: string,
  rows: readonly { minute: number; values: Record<string, number> }[],
  keys: readonly { key: string; label: string; color: string }[],
  from: number,
  to: number,
  shape: 'bars' | 'area',
): string {
  const height = CHART_HEIGHT;
  const bottom = height - MARGIN.bottom;
  // Whole minutes, so the last minute's count is drawn to its end.
  const x = scaleUtc()
    .domain([new Date(Math.floor(from / MINUTE_MS) * MINUTE_MS), new Date(Math.ceil(to / MINUTE_MS) * MINUTE_MS)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  const series = stack<{ minute: number; values: Record<string, number> }>()
    .keys(keys.map((k) => k.key))
    .value((row, key) => row.values[key] ?? 0)(rows);
  const peak = Math.max(1, ...series.flatMap((s) => s.map((p) => p[1])));
  const y = scaleLinear().domain([0, peak]).nice().range([bottom, MARGIN.top]);
  const yTicks = y
    .ticks(4)
    .map(
      (v) =>
        `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${n(y(v))}" y2="${n(y(v))}" stroke="#d0d7de" stroke-width="0.5"/>` +
        `<text x="${MARGIN.left - 6}" y="${n(y(v)) + 4}" text-anchor="end" class="tick">${v}</text>`,
    )
    .join('');
  const band = scaleBand<number>()
    .domain(rows.map((r) => r.minute))
    .range([0, Math.max(1, x(new Date(from + 60_000)) - x(new Date(from)))])
    .padding(0.15);
  const drawn = series.map((s, i) => {
    const { label, color } = keys[i]!;
    if (shape === 'area') {
      // A step per minute: each minute's count held across it (and the last one closed at its end).
      const points = s.map((p) => ({ minute: p.data.minute, y0: p[0], y1: p[1] }));
      const last = points.at(-1);
      if (last) points.push({ ...last, minute: last.minute + MINUTE_MS });
      const path = area<(typeof points)[number]>()
        .x((p) => x(new Date(p.minute)))
        .y0((p) => y(p.y0))
        .y1((p) => y(p.y1))
        .curve(curveStepAfter)(points);
      return `<path d="${path ?? ''}" fill="${color}" fill-opacity="0.85"><title>${escapeXml(label)}</title></path>`;
    }
    return s
      .filter((p) => p[1] > p[0])
      .map(
        (p) =>
          `<rect x="${n(x(new Date(p.data.minute)) + (band.bandwidth() ? (band.step() - band.bandwidth()) / 2 : 0))}" y="${n(y(p[1]))}" width="${n(Math.max(1, band.bandwidth()))}" height="${n(y(p[0]) - y(p[1]))}" fill="${color}">` +
          `<title>${escapeXml(`${hhmm(p.data.minute)} ${label}: ${p[1] - p[0]}`)}</title></rect>`,
      )
      .join('');
  });
  const legend = keys
    .map((k, i) => {
      const lx = MARGIN.left + (i % LEGEND_COLUMNS) * 420;
      const ly = height + 6 + Math.floor(i / LEGEND_COLUMNS) * 16;
      return `<rect x="${lx}" y="${ly}" width="10" height="10" fill="${k.color}"/><text x="${lx + 14}" y="${ly + 9}" class="legend">${escapeXml(truncate(k.label, 64))}</text>`;
    })
    .join('');
  const total = height + 10 + Math.ceil(keys.length / LEGEND_COLUMNS) * 16;
  const caption = `<text x="${MARGIN.left}" y="12" class="caption">${escapeXml(title)}</text>`;
  return svg(total, title, caption + timeAxis(x, bottom) + yTicks + drawn.join('') + legend);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** False 404s per minute, stacked by client (the busiest few, the rest as one band). */
export function false404sSvg(r: RecordingReport): string {
  const byClient = new Map<string, number>();
  for (const f of r.false404s) byClient.set(clientOf(f), (byClient.get(clientOf(f)) ?? 0) + f.count);
  const ranked = [...byClient].sort((a, b) => b[1] - a[1]).map(([c]) => c);
  const shown = new Set(ranked.slice(0, MAX_CLIENTS));
  const OTHER = 'other clients';
  const minutes = new Map<number, Record<string, number>>();
  for (const f of r.false404s) {
    const key = shown.has(clientOf(f)) ? clientOf(f) : OTHER;
    const row = minutes.get(f.minute) ?? {};
    row[key] = (row[key] ?? 0) + f.count;
    minutes.set(f.minute, row);
  }
  const keys = [...shown, ...(ranked.length > MAX_CLIENTS ? [OTHER] : [])].map((key, i) => ({
    key,
    label: key,
    color: key === OTHER ? '#8b949e' : PALETTE[i % PALETTE.length]!,
  }));
  const rows = [...minutes].sort((a, b) => a[0] - b[0]).map(([minute, values]) => ({ minute, values }));
  return stackedSvg('False 404s per minute, by client', rows, keys, r.from, r.to, 'bars');
}

/** Requests per minute stacked by outcome, as one source counted them. */
export function outcomesSvg(r: RecordingReport, source: string): string {
  const rows = r.outcomesPerMinute.filter((m) => m.source === source).map((m) => ({ minute: m.minute, values: m.outcomes }));
  const seen = [...new Set(rows.flatMap((row) => Object.keys(row.values)))];
  const order = Object.keys(OUTCOME_COLORS);
  seen.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  const keys = seen.map((key, i) => ({ key, label: key, color: OUTCOME_COLORS[key] ?? PALETTE[i % PALETTE.length]! }));
  return stackedSvg(
    `Requests per minute by outcome, ${SOURCE_WORDS[source] ?? source}`,
    rows,
    keys,
    r.from,
    r.to,
    rows.length > 1 ? 'area' : 'bars',
  );
}

function svg(height: number, title: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${escapeXml(title)}"><title>${escapeXml(title)}</title>${body}</svg>`;
}
