// The rollout report of a recording over a window (the post-mortem): each server (its identity and
// display name) with its release and state over time, the rollout's steps, the incidents
// (report-incidents.ts), requests by outcome per minute, the false 404s per client × server × GVR per minute, what the port rerouted, and the clients that
// break at the target release (report-breaking.ts). Plain data in the contract's shape
// (contract/recording-report.ts), rendered as Markdown (report-text.ts), HTML (report-html.ts) or JSON.
import {
  RECORDING_REPORT_KIND,
  serverChangeKinds,
  type False404Minute,
  type OutcomeMinute,
  type RecordingReport,
  type ServerTimeline,
} from '../../contract/recording-report.js';
import type { RecordingReader, SeriesCount, Window } from './reader.js';
import { breakingClients } from './report-breaking.js';
import { incidentsOf } from './report-incidents.js';

export type { RecordingReport, ServerTimeline } from '../../contract/recording-report.js';

export interface ReportOptions {
  /** The release to judge the clients against, as an operator names it; default the newest release recorded. */
  readonly toRelease?: string;
}

export function buildRecordingReport(reader: RecordingReader, window: Window = {}, options: ReportOptions = {}): RecordingReport {
  const info = reader.info();
  const from = window.from ?? info.startedAt;
  const to = window.to ?? info.endedAt + 1;
  const span = { from, to };
  // Totals per series over the window (one row per series, however long the window), and the minutes of the per-minute tables.
  const totals = reader.counts(span);
  const minutes = reader.counts(span, true, (s) => s.outcome === 'false-404' || (s.source === 'port' && s.code === 503));
  const outcomes: Record<string, Record<string, number>> = {};
  for (const c of totals) {
    const bySource = (outcomes[c.source] ??= {});
    bySource[c.outcome] = (bySource[c.outcome] ?? 0) + c.count;
  }
  // As named by the window's end; a server first named after it (or never by then), as last named at all.
  const shown = new Map([...reader.displayNames(), ...reader.displayNames(to - 1)]);
  const servers = reader.servers().map((server) => timelineOf(reader, server, span, shown.get(server)));
  return {
    apiVersion: 'peerscope.dev/v1',
    kind: RECORDING_REPORT_KIND,
    recording: info,
    from,
    to,
    servers,
    incidents: incidentsOf(
      servers,
      minutes.filter((s) => s.source === 'port' && s.code === 503),
    ),
    steps: reader.changes(span, ['step']).map((c) => ({ at: c.at, subject: c.subject, value: c.value })),
    outcomes,
    outcomesPerMinute: outcomesPerMinute(reader.outcomeMinutes(span)),
    false404s: false404sOf(minutes),
    rerouted: sum(
      totals.filter((c) => c.source === 'port' && c.outcome === 'rerouted'),
      (c): [string, string, string] => [c.server ?? '', c.answered ?? '', c.gvr],
    ).map(([[f, t, gvr], count]) => ({ from: f, to: t, gvr, count })),
    ...breakingClients(reader, span, totals, options.toRelease),
  };
}

function timelineOf(reader: RecordingReader, server: string, span: Required<Window>, displayName?: string): ServerTimeline {
  const kinds = serverChangeKinds;
  // The state as the window opens, then each change inside it.
  const before = kinds.flatMap((k) => {
    const c = k === 'membership' ? undefined : reader.valueAt(k, server, span.from);
    return c ? [{ at: span.from, kind: k, value: c.value }] : [];
  });
  const inside = reader
    .changes(span, kinds)
    .filter((c) => c.subject === server && c.at > span.from)
    .map((c) => ({ at: c.at, kind: c.kind as (typeof kinds)[number], value: c.value }));
  return { server, ...(displayName === undefined ? {} : { displayName }), changes: [...before, ...inside] };
}

/** Requests per minute by source and outcome, oldest first. */
function outcomesPerMinute(counts: ReturnType<RecordingReader['outcomeMinutes']>): OutcomeMinute[] {
  const rows = new Map<string, OutcomeMinute>();
  for (const m of counts) {
    const key = `${m.at}\u0000${m.source}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { minute: m.at, source: m.source, outcomes: {} }));
    row.outcomes[m.outcome] = (row.outcomes[m.outcome] ?? 0) + m.count;
  }
  return [...rows.values()].sort((a, b) => a.minute - b.minute || (a.source < b.source ? -1 : 1));
}

function false404sOf(minutes: readonly SeriesCount[]): False404Minute[] {
  return sum(
    minutes.filter((s) => s.outcome === 'false-404'),
    (c): [number, string, string, string, string] => [c.at, c.client, c.user ?? '', c.server ?? '', c.gvr],
  )
    .map(([[minute, client, user, server, gvr], count]) => ({ minute, client, user, server, gvr, count }))
    .sort((a, b) => a.minute - b.minute);
}

/** Counts summed by key, largest first, ties in key order. */
export function sum<K extends (string | number)[]>(rows: readonly SeriesCount[], key: (c: SeriesCount) => K): [K, number][] {
  const out = new Map<string, [K, number]>();
  for (const r of rows) {
    const k = key(r);
    const id = k.join('\u0000');
    const entry = out.get(id);
    if (entry) entry[1] += r.count;
    else out.set(id, [k, r.count]);
  }
  // Compared by code units on the joined key: localeCompare, or joining per comparison, took most of a report's time.
  return [...out].sort(([x, a], [y, b]) => b[1] - a[1] || (x < y ? -1 : x > y ? 1 : 0)).map(([, entry]) => entry);
}
