// The rollout report of a recording over a window (the post-mortem): each server's release and state
// over time, the incidents (a server down or out of reach, gone; peer 503s), the false 404s per
// client × server × GVR per minute, what the port rerouted, and the counts by source and outcome.
// Plain data, rendered as Markdown by report-markdown.ts or printed as JSON.
import type { RecordingInfo, RecordingReader, SeriesCount, Window } from './reader.js';

export interface ServerTimeline {
  readonly server: string;
  /** Health, release and membership changes, oldest first; the first entry of each kind is the state when the window opened. */
  readonly changes: { readonly at: number; readonly kind: 'health' | 'release' | 'membership'; readonly value: string }[];
}

export interface Incident {
  readonly server: string;
  /** unreachable / not-ready / gone: a span of the timeline; peer-503: minutes in which the port answered 503 for a server. */
  readonly kind: 'unreachable' | 'not-ready' | 'gone' | 'peer-503';
  readonly from: number;
  /** Null: still so when the window (or the recording) ends. */
  readonly to: number | null;
  /** peer-503: how many requests were answered 503 in the span. */
  readonly count?: number;
}

export interface MinuteCount {
  /** Start of the minute, epoch ms. */
  readonly minute: number;
  /** The user agent ('' when the client sent none) and, from the cluster source, the user it authenticated as. */
  readonly client: string;
  readonly user: string;
  readonly server: string;
  readonly gvr: string;
  readonly count: number;
}

export interface RecordingReport {
  readonly recording: RecordingInfo;
  /** The window reported, epoch ms. */
  readonly from: number;
  readonly to: number;
  readonly servers: ServerTimeline[];
  readonly incidents: Incident[];
  /** Requests by source (port, audit-log, audit-webhook) and outcome. */
  readonly outcomes: Record<string, Record<string, number>>;
  /** From the cluster source (the servers' audit logs or webhook): a server answered 404 for what a peer serves. */
  readonly false404s: MinuteCount[];
  /** The port's reroutes: handled by `from`, answered by `to`. */
  readonly rerouted: { readonly from: string; readonly to: string; readonly gvr: string; readonly count: number }[];
}

const UNHEALTHY = new Set(['unreachable', 'not-ready', 'gone']);

export function buildRecordingReport(reader: RecordingReader, window: Window = {}): RecordingReport {
  const info = reader.info();
  const from = window.from ?? info.startedAt;
  const to = window.to ?? info.endedAt + 1;
  const span = { from, to };
  // Totals per series over the window (one row per series, however long the window), and the minutes of the two per-minute tables.
  const counts = reader.counts(span);
  const outcomes: Record<string, Record<string, number>> = {};
  for (const c of counts) {
    const bySource = (outcomes[c.source] ??= {});
    bySource[c.outcome] = (bySource[c.outcome] ?? 0) + c.count;
  }
  const servers = reader.servers().map((server) => timelineOf(reader, server, span));
  return {
    recording: info,
    from,
    to,
    servers,
    incidents: [...servers.flatMap(spansOf), ...peer503s(reader.counts(span, true, (s) => s.source === 'port' && s.code === 503))],
    outcomes,
    false404s: sum(
      reader.counts(span, true, (s) => s.outcome === 'false-404'),
      (c): [number, string, string, string, string] => [c.at, c.client, c.user ?? '', c.server ?? '', c.gvr],
    )
      .map(([[minute, client, user, server, gvr], count]) => ({ minute, client, user, server, gvr, count }))
      .sort((a, b) => a.minute - b.minute),
    rerouted: sum(
      counts.filter((c) => c.source === 'port' && c.outcome === 'rerouted'),
      (c): [string, string, string] => [c.server ?? '', c.answered ?? '', c.gvr],
    ).map(([[f, t, gvr], count]) => ({ from: f, to: t, gvr, count })),
  };
}

function timelineOf(reader: RecordingReader, server: string, span: Required<Window>): ServerTimeline {
  const kinds = ['health', 'release', 'membership'] as const;
  // The state as the window opens, then each change inside it.
  const before = kinds.flatMap((k) => {
    const c = k === 'membership' ? undefined : reader.valueAt(k, server, span.from);
    return c ? [{ at: span.from, kind: k, value: c.value }] : [];
  });
  const inside = reader
    .changes(span, kinds)
    .filter((c) => c.subject === server && c.at > span.from)
    .map((c) => ({ at: c.at, kind: c.kind as (typeof kinds)[number], value: c.value }));
  return { server, changes: [...before, ...inside] };
}

/** The spans a server was unreachable, not ready or gone. */
function spansOf(timeline: ServerTimeline): Incident[] {
  const out: Incident[] = [];
  let open: { kind: Incident['kind']; from: number } | undefined;
  const close = (at: number | null) => {
    if (open) out.push({ server: timeline.server, kind: open.kind, from: open.from, to: at });
    open = undefined;
  };
  for (const c of timeline.changes) {
    const kind = incidentOf(c);
    if (kind && open?.kind !== kind && open?.kind !== 'gone') {
      close(c.at);
      open = { kind, from: c.at };
    } else if (!kind && (c.kind === 'health' ? open?.kind !== 'gone' : c.kind === 'membership' && c.value === 'back')) close(c.at);
  }
  close(null);
  return out;
}

function incidentOf(c: ServerTimeline['changes'][number]): Incident['kind'] | undefined {
  if (c.kind === 'health' && UNHEALTHY.has(c.value)) return c.value as Incident['kind'];
  if (c.kind === 'membership' && c.value === 'gone') return 'gone';
  return undefined;
}

/** The minutes in which the port answered 503 for requests handled by each server, runs of minutes merged. */
function peer503s(minutes: SeriesCount[]): Incident[] {
  const byServer = new Map<string, Map<number, number>>();
  for (const m of minutes) {
    const server = m.server ?? '(none)';
    const row = byServer.get(server) ?? new Map<number, number>();
    row.set(m.at, (row.get(m.at) ?? 0) + m.count);
    byServer.set(server, row);
  }
  const out: Incident[] = [];
  for (const [server, row] of byServer) {
    let run: { from: number; to: number; count: number } | undefined;
    for (const at of [...row.keys()].sort((a, b) => a - b)) {
      if (run && run.to === at) {
        run.to = at + 60_000;
        run.count += row.get(at) ?? 0;
        continue;
      }
      if (run) out.push({ server, kind: 'peer-503', ...run });
      run = { from: at, to: at + 60_000, count: row.get(at) ?? 0 };
    }
    if (run) out.push({ server, kind: 'peer-503', ...run });
  }
  return out;
}

/** Counts summed by key, largest first, ties in key order. */
function sum<K extends (string | number)[]>(rows: readonly SeriesCount[], key: (c: SeriesCount) => K): [K, number][] {
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
