// The incidents of a rollout report, read from each server's timeline and the port's 503s: a server
// unreachable, not ready or gone; its discovery stale (the read failed and its last document was kept);
// API registrations missing from its legacy /apis; and the minutes the port answered 503 for it.
import type { Incident, ServerTimeline } from '../../contract/recording-report.js';
import type { SeriesCount } from './reader.js';

const MINUTE_MS = 60_000;
const UNHEALTHY = new Set(['unreachable', 'not-ready', 'gone']);

type Change = ServerTimeline['changes'][number];

/** Every incident of the window, by start time. */
export function incidentsOf(servers: readonly ServerTimeline[], port503Minutes: readonly SeriesCount[]): Incident[] {
  return [
    ...servers.flatMap((s) => [
      ...healthSpans(s),
      ...spans(s, 'discovery-state', (v) => (v === 'stale' ? { kind: 'discovery-stale' } : undefined)),
      ...spans(s, 'registration', (v) => (v ? { kind: 'registration-missing', detail: v } : undefined)),
    ]),
    ...peer503s(port503Minutes),
  ].sort((a, b) => a.from - b.from || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}

/** The spans a server was unreachable, not ready or gone (gone lasts until it is back, whatever its health says meanwhile). */
function healthSpans(timeline: ServerTimeline): Incident[] {
  const out: Incident[] = [];
  let open: { kind: Incident['kind']; from: number } | undefined;
  const close = (at: number | null) => {
    if (open) out.push({ server: timeline.server, kind: open.kind, from: open.from, to: at });
    open = undefined;
  };
  for (const c of timeline.changes) {
    const kind = healthIncidentOf(c);
    if (kind && open?.kind !== kind && open?.kind !== 'gone') {
      close(c.at);
      open = { kind, from: c.at };
    } else if (!kind && (c.kind === 'health' ? open?.kind !== 'gone' : c.kind === 'membership' && c.value === 'back')) close(c.at);
  }
  close(null);
  return out;
}

function healthIncidentOf(c: Change): Incident['kind'] | undefined {
  if (c.kind === 'health' && UNHEALTHY.has(c.value)) return c.value as Incident['kind'];
  if (c.kind === 'membership' && c.value === 'gone') return 'gone';
  return undefined;
}

/**
 * The spans in which the values of one kind of change make an incident (`incidentOf` says which, and
 * with what detail); a new value that makes a different incident (another list of missing
 * registrations) closes the one open and opens the next.
 */
function spans(
  timeline: ServerTimeline,
  kind: Change['kind'],
  incidentOf: (value: string) => Pick<Incident, 'kind' | 'detail'> | undefined,
): Incident[] {
  const out: Incident[] = [];
  let open: Incident | undefined;
  for (const c of timeline.changes) {
    if (c.kind !== kind) continue;
    const next = incidentOf(c.value);
    if (open && next && next.kind === open.kind && next.detail === open.detail) continue;
    if (open) out.push({ ...open, to: c.at });
    open = next ? { server: timeline.server, ...next, from: c.at, to: null } : undefined;
  }
  if (open) out.push(open);
  return out;
}

/** The minutes in which the port answered 503 for requests handled by each server, runs of minutes merged. */
function peer503s(minutes: readonly SeriesCount[]): Incident[] {
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
        run.to = at + MINUTE_MS;
        run.count += row.get(at) ?? 0;
        continue;
      }
      if (run) out.push({ server, kind: 'peer-503', ...run });
      run = { from: at, to: at + MINUTE_MS, count: row.get(at) ?? 0 };
    }
    if (run) out.push({ server, kind: 'peer-503', ...run });
  }
  return out;
}
