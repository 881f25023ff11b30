// The rollout report as one self-contained HTML file: the charts inline as SVG (report-charts.ts),
// the tables under them, a style sheet of its own, and no script, font or address to fetch — it opens
// offline, attached to a ticket or mailed. Its Content-Security-Policy admits nothing but that one
// style sheet (by its hash), so the file reads the same under a strict policy; it prints on white.
import { createHash } from 'node:crypto';
import type { RecordingReport } from '../../contract/recording-report.js';
import { canonicalRelease } from '../releases/release-names.js';
import { HEALTH_COLORS, escapeXml as esc, false404sSvg, outcomesSvg, swimLanesSvg } from './report-charts.js';
import { clientOf, formatMinute, formatTime, incidentSpan, outcomeLines, serverNamer, targetLine, timelineRows } from './report-text.js';

/** Past this many rows, the per-minute false 404 table is cut (the totals table above it is whole; -o json has every row). */
export const MAX_MINUTE_ROWS = 2_000;

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.meta { color: #57606a; margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 4px; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
svg { display: block; margin: 4px 0 8px; } svg text { font: 11px system-ui, sans-serif; fill: #1f2328; }
svg .tick { fill: #57606a; font-size: 10px; } svg .caption { font-weight: 600; font-size: 12px; } svg .release { font-weight: 600; font-size: 11px; fill: #fff; paint-order: stroke; stroke: #24292f; stroke-width: 2px; }
.key { display: inline-flex; gap: 12px; flex-wrap: wrap; font-size: 12px; color: #57606a; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
.none { color: #57606a; } .note { color: #57606a; font-size: 12px; }
${Object.entries(HEALTH_COLORS)
  .map(([state, color]) => `.swatch.h-${state} { background: ${color}; }`)
  .join('\n')}
@media print { body { margin: 0; max-width: none; font-size: 11px; } h2 { break-after: avoid; } svg, tr { break-inside: avoid; } }
`;

function table(header: readonly string[], rows: readonly (readonly string[])[], numeric: readonly number[] = []): string {
  if (rows.length === 0) return '<p class="none">None.</p>';
  const cell = (text: string, i: number) => `<td${numeric.includes(i) ? ' class="num"' : ''}>${esc(text)}</td>`;
  return `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map(cell).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function healthKey(): string {
  return `<div class="key">${Object.keys(HEALTH_COLORS)
    .map((state) => `<span><span class="swatch h-${state}"></span>${esc(state)}</span>`)
    .join('')}<span>▼ rollout step · | release change</span></div>`;
}

/** The false 404s summed over the window per client × server × GVR, largest first. */
function false404Totals(r: RecordingReport): string[][] {
  const named = serverNamer(r);
  const totals = new Map<string, { row: string[]; count: number }>();
  for (const f of r.false404s) {
    const row = [clientOf(f), named(f.server), f.gvr];
    const key = row.join('\u0000');
    const entry = totals.get(key) ?? { row, count: 0 };
    entry.count += f.count;
    totals.set(key, entry);
  }
  return [...totals.values()].sort((a, b) => b.count - a.count).map((t) => [...t.row, String(t.count)]);
}

function falseMinutes(r: RecordingReport): string {
  const named = serverNamer(r);
  const rows = r.false404s
    .slice(0, MAX_MINUTE_ROWS)
    .map((f) => [formatMinute(f.minute), clientOf(f), named(f.server), f.gvr, String(f.count)]);
  const cut =
    r.false404s.length > MAX_MINUTE_ROWS
      ? `<p class="note">The first ${MAX_MINUTE_ROWS} of ${r.false404s.length} rows; the Markdown and JSON forms have all of them.</p>`
      : '';
  return table(['minute (UTC)', 'client', 'server', 'GVR', 'false 404s'], rows, [4]) + cut;
}

/** The report as one HTML document. */
export function reportHtml(r: RecordingReport): string {
  const style = STYLE;
  const hash = createHash('sha256').update(style).digest('base64');
  const csp = `default-src 'none'; style-src 'sha256-${hash}'; img-src data:; base-uri 'none'; form-action 'none'`;
  const sources = Object.keys(r.outcomes);
  const named = serverNamer(r);
  const title = `Rollout report: ${formatTime(r.from)} → ${formatTime(r.to)}`;
  const body = [
    `<h1>${esc(title)}</h1>`,
    `<p class="meta">Recording <code>${esc(r.recording.file)}</code> (peerscope ${esc(r.recording.peerscopeVersion)}, ${esc(r.recording.host)}), ${esc(formatTime(r.recording.startedAt))} → ${esc(formatTime(r.recording.endedAt))}, ${r.recording.events} events. Times are UTC.</p>`,
    '<h2>Servers: release and health over time</h2>',
    r.servers.length ? swimLanesSvg(r) + healthKey() : '<p class="none">No server was recorded.</p>',
    table(
      ['time', 'server', 'change', 'value'],
      timelineRows(r).map((c) => [formatTime(c.at), c.server, c.kind, c.value]),
    ),
    '<h2>Incidents</h2>',
    table(
      ['server', 'incident', 'from', 'to', 'requests / detail'],
      r.incidents.map((i) => [named(i.server), i.kind, ...incidentSpan(i), i.count === undefined ? (i.detail ?? '') : String(i.count)]),
    ),
    '<h2>Clients that break at the target release</h2>',
    `<p>${esc(targetLine(r))}</p>`,
    r.breaking.length
      ? table(
          ['client', 'seen by', 'GVR', 'requests', 'finding'],
          r.breaking.map((b) => [b.client.name, b.source, b.gvr, String(b.requests), b.message]),
          [3],
        )
      : '',
    '<h2>False 404s</h2>',
    r.false404s.length ? false404sSvg(r) : '',
    '<p class="note">From the servers’ audit logs: a server answered 404 for what a peer serves.</p>',
    table(['client', 'server', 'GVR', 'false 404s'], false404Totals(r), [3]),
    '<h3>Per client × server × GVR per minute</h3>',
    falseMinutes(r),
    '<h2>Requests by outcome</h2>',
    ...sources.map((s) => outcomesSvg(r, s)),
    `<ul>${outcomeLines(r)
      .map((l) => `<li>${esc(l)}</li>`)
      .join('')}</ul>`,
    '<h2>What the port rerouted</h2>',
    table(
      ['handling server', 'answered by', 'GVR', 'requests'],
      r.rerouted.map((x) => [named(x.from), named(x.to), x.gvr, String(x.count)]),
      [3],
    ),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${style}</style>
</head>
<body>
${body.join('\n')}
<p class="note">Made by peerscope recording report${r.target ? `; clients judged against ${esc(canonicalRelease(r.target.release))}` : ''}.</p>
</body>
</html>
`;
}
