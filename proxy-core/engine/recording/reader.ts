// Reads a recording (schema.ts): its span, counts over a window from the per-minute rollups, the
// servers' timeline and display names, a server's discovery at a moment, and the raw events of a
// window. The file is opened and checked by reader-file.ts; a fault SQLite finds later (a page cut off mid-file) is
// refused the same way, naming the file.
import type { RecordedDiscovery } from './feed.js';
import type { StoredMetrics } from './feed-cluster.js';
import { PAGE_BLOCKS_SQL, PAGE_EVENTS_SQL, type PageCursor } from './page.js';
import { eventSources, type ChangeKind, type EventSource } from './schema.js';
import type { Change, RecordedEvent, RecordingInfo, Series, SeriesCount, Window } from './reader-types.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';
import { RecordingFile } from './reader-file.js';

export const MINUTE_MS = 60_000;

export type { Change, RecordedEvent, RecordingInfo, Series, SeriesCount, Window } from './reader-types.js';

export class RecordingReader extends RecordingFile {
  private constructor(file: string) {
    super(file);
  }

  static open(file: string): RecordingReader {
    return new RecordingReader(file);
  }

  info(): RecordingInfo {
    const last = this.all('SELECT max(max_t) t FROM blocks')[0]?.t;
    const change = this.all('SELECT max(t) t FROM changes')[0]?.t;
    // Kept in meta by each flush; summed from the rollups for a file that lacks it.
    const events = this.meta.has('events')
      ? this.all("SELECT value FROM meta WHERE key = 'events'")[0]?.value
      : this.all('SELECT coalesce(sum(count), 0) n FROM minutes')[0]?.n;
    const end = Math.max(Number(last ?? 0), Number(change ?? 0));
    return {
      file: this.file,
      host: this.meta.get('host') ?? '',
      peerscopeVersion: this.meta.get('peerscope_version') ?? '',
      startedAt: this.startedAt,
      endedAt: this.startedAt + end,
      events: Number(events ?? 0),
    };
  }

  /**
   * Counts per series over the window, from the per-minute rollups: whole minutes, those that
   * `from` and `to` fall in included. `perMinute`: one row per minute and series, else one per series.
   */
  counts(window: Window = {}, perMinute = false, where?: (s: Series) => boolean): SeriesCount[] {
    this.catchUp();
    const from = window.from === undefined ? -1 : Math.floor(window.from / MINUTE_MS);
    const to = window.to === undefined ? Number.MAX_SAFE_INTEGER : Math.floor((window.to - 1) / MINUTE_MS);
    // The series asked for are picked here and only their rows read.
    const ids = where ? [...this.series].filter(([, s]) => where(s)).map(([id]) => id) : undefined;
    if (ids?.length === 0) return [];
    const only = ids ? 'AND series IN (SELECT value FROM json_each(?))' : '';
    const params = [from, to, ...(ids ? [JSON.stringify(ids)] : [])];
    const rows = perMinute
      ? this.rowsOf(
          `SELECT json_group_array(json_array(series, count, latency, minute)) FROM minutes WHERE minute BETWEEN ? AND ? ${only}`,
          ...params,
        )
      : this.rowsOf(
          `SELECT json_group_array(json_array(series, n, l)) FROM (SELECT series, sum(count) n, sum(latency) l FROM minutes WHERE minute BETWEEN ? AND ? ${only} GROUP BY series)`,
          ...params,
        );
    const out: SeriesCount[] = [];
    for (const [series, count, latency, minute] of rows) {
      const s = this.series.get(series as number);
      if (!s) continue;
      out.push({
        ...s,
        at: perMinute ? (minute as number) * MINUTE_MS : (window.from ?? this.startedAt),
        count: count as number,
        latency: latency as number,
      });
    }
    return out;
  }

  /** Requests per minute by source and outcome over the window (whole minutes, as `counts`), summed by SQLite: a few rows a minute. */
  outcomeMinutes(window: Window = {}): { at: number; source: EventSource; outcome: string; count: number }[] {
    this.catchUp();
    const from = window.from === undefined ? -1 : Math.floor(window.from / MINUTE_MS);
    const to = window.to === undefined ? Number.MAX_SAFE_INTEGER : Math.floor((window.to - 1) / MINUTE_MS);
    const rows = this.rowsOf(
      `SELECT json_group_array(json_array(minute, source, outcome, n)) FROM (SELECT m.minute, s.source, s.outcome, sum(m.count) n
       FROM minutes m JOIN series s ON s.id = m.series WHERE m.minute BETWEEN ? AND ? GROUP BY 1, 2, 3 ORDER BY 1)`,
      from,
      to,
    );
    return rows.map(([minute, source, outcome, count]) => ({
      at: (minute as number) * MINUTE_MS,
      source: eventSources[source ?? 0] ?? 'port',
      outcome: this.names.get(outcome as number) ?? '?',
      count: count as number,
    }));
  }

  /** The timeline's changes in the window (all kinds, or those named), oldest first. */
  changes(window: Window = {}, kinds?: readonly ChangeKind[]): Change[] {
    const [from, to] = this.relative(window);
    const only = kinds ? 'AND kind IN (SELECT value FROM json_each(?))' : '';
    return this.all(
      `SELECT t, kind, subject, value FROM changes WHERE t >= ? AND t < ? ${only} ORDER BY t, rowid`,
      from,
      to,
      ...(kinds ? [JSON.stringify(kinds)] : []),
    ).map((r) => ({ at: this.startedAt + Number(r.t), kind: r.kind as ChangeKind, subject: String(r.subject), value: String(r.value) }));
  }

  /** What `kind` of `subject` was at `at` (its last change at or before), if anything was recorded by then. */
  valueAt(kind: ChangeKind, subject: string, at: number): Change | undefined {
    const r = this.all(
      'SELECT t, value FROM changes WHERE kind = ? AND subject = ? AND t <= ? ORDER BY t DESC, rowid DESC LIMIT 1',
      kind,
      subject,
      at - this.startedAt,
    )[0];
    return r ? { at: this.startedAt + Number(r.t), kind, subject, value: String(r.value) } : undefined;
  }

  /** The discovery `server` served at `at`: as last read by then. */
  discoveryAt(server: string, at: number): (RecordedDiscovery & { readonly hash: string; readonly since: number }) | undefined {
    const change = this.valueAt('discovery', server, at);
    if (!change) return undefined;
    return { ...(this.document(change.value, 'discovery document') as RecordedDiscovery), hash: change.value, since: change.at };
  }

  /** The route table at `at` (as last recorded by then): each GVR key with the servers whose discovery lists it. */
  routeTableAt(at: number): { readonly rows: [gvr: string, servers: string[]][]; readonly since: number } | undefined {
    const change = this.valueAt('route-table', '', at);
    if (!change) return undefined;
    return { rows: this.document(change.value, 'route table') as [string, string[]][], since: change.at };
  }

  /**
   * Each server's missing API registrations at `at` (their group/versions, sorted; [] when none), for
   * the servers whose legacy /apis was read by then.
   */
  registrationsAt(at: number): { readonly server: string; readonly groupVersions: string[]; readonly since: number }[] {
    const out = [];
    const servers = this.all("SELECT subject FROM changes WHERE kind = 'registration' GROUP BY subject ORDER BY min(rowid)");
    for (const server of servers.map((r) => String(r.subject))) {
      const change = this.valueAt('registration', server, at);
      if (change) out.push({ server, groupVersions: change.value ? change.value.split(',') : [], since: change.at });
    }
    return out;
  }

  /**
   * What `server`'s last /metrics read by `at` gave. Reads that counted the same are recorded once:
   * `readAt` is the first of them, `since` too.
   */
  metricsAt(server: string, at: number): (ServerMetrics & { readonly hash: string; readonly since: number }) | undefined {
    const change = this.valueAt('metrics', server, at);
    if (!change) return undefined;
    const stored = this.document(change.value, 'metrics read') as StoredMetrics;
    return { ...stored, readAt: change.at, hash: change.value, since: change.at };
  }

  /**
   * Each server's display name (its host name) as last recorded by `at`, or last recorded at all.
   * A server with none recorded (a file written before display names were) is absent: show its identity.
   */
  displayNames(at?: number): Map<string, string> {
    const to = at === undefined ? Number.MAX_SAFE_INTEGER : at - this.startedAt;
    const rows = this.all("SELECT subject, value FROM changes WHERE kind = 'display-name' AND t <= ? ORDER BY t, rowid", to);
    return new Map(rows.map((r) => [String(r.subject), String(r.value)]));
  }

  /** The servers recorded, in the order first seen. */
  servers(): string[] {
    return [
      ...new Set(
        this.all("SELECT subject FROM changes WHERE kind IN ('health', 'membership') ORDER BY t, rowid").map((r) => String(r.subject)),
      ),
    ];
  }

  /** The raw events of the window, in the order written, at most `limit`. */
  events(window: Window = {}, limit = 1_000): RecordedEvent[] {
    this.catchUp();
    const span = this.eventSpan(window);
    if (!span) return [];
    const [from, to] = this.relative(window);
    const rows = this.all(
      'SELECT t, series, ns, latency FROM events WHERE rowid BETWEEN ? AND ? AND t >= ? AND t < ? ORDER BY rowid LIMIT ?',
      span.first,
      span.last,
      from,
      to,
      limit,
    );
    return rows.map((r) => ({
      ...(this.series.get(Number(r.series)) as Series),
      at: this.startedAt + Number(r.t),
      namespace: r.ns === null ? '' : (this.names.get(Number(r.ns)) ?? ''),
      latencyMs: Number(r.latency),
    }));
  }

  /** The rowids the window's events lie between (from the flushes' blocks); undefined when it has none. */
  eventSpan(window: Window = {}): { readonly first: number; readonly last: number } | undefined {
    const [from, to] = this.relative(window);
    const span = this.all('SELECT min(first) first, max(last) last FROM blocks WHERE max_t >= ? AND min_t < ?', from, to)[0];
    return !span || span.first === null ? undefined : { first: Number(span.first), last: Number(span.last) };
  }

  /**
   * The events of rowids first..last in the window, in rowid order, as they are stored: [time since
   * the start (ms), series id, namespace id or null, latency ms] — for a reader of many (export.ts).
   */
  eventRows(first: number, last: number, window: Window = {}): (number | null)[][] {
    const [from, to] = this.relative(window);
    const sql = 'SELECT json_group_array(json_array(t, series, ns, latency)) FROM events WHERE rowid BETWEEN ? AND ? AND t >= ? AND t < ?';
    return this.rowsOf(sql, first, last, from, to);
  }

  /**
   * Up to `limit` per-minute rows after the row (minute, series) `after`, in that order, up to minute
   * `toMinute` (minutes since the epoch): [minute, series id, count, latency sum].
   */
  minuteRows(after: readonly [number, number], toMinute: number, limit: number): number[][] {
    const sql =
      'SELECT json_group_array(json_array(minute, series, count, latency)) FROM (SELECT * FROM minutes WHERE (minute, series) > (?, ?) AND minute <= ? ORDER BY minute, series LIMIT ?)';
    return this.rowsOf(sql, after[0], after[1], toMinute, limit) as number[][];
  }

  /**
   * The window's events in time order (ties by row), after `after`, at most `limit` (page.ts); `next`
   * is where the following page starts, null when the window has no more. A page reads about `limit`
   * rows however long the window, so a replay fetches ahead in bounded chunks.
   */
  eventsPage(window: Window, limit: number, after?: PageCursor): { events: (RecordedEvent & { row: number })[]; next: PageCursor | null } {
    const [from, to] = this.relative(window);
    const resumed = after !== undefined && after.at - this.startedAt >= from;
    const start = resumed ? after.at - this.startedAt : from;
    const plan = this.all(PAGE_BLOCKS_SQL, start, to, limit)[0];
    const end = Math.min(to, plan?.page_end === null || plan?.page_end === undefined ? to : Number(plan.page_end));
    const rows = this.rowsOf(PAGE_EVENTS_SQL, String(plan?.blocks ?? '[]'), start, end, resumed ? after.row : 0, limit);
    // A recording still being written has gained series (and names) since this reader opened it.
    if (rows.some((r) => !this.series.has(r[2] as number))) this.catchUp();
    const events = rows.map(([row, t, series, ns, latency]) => ({
      ...(this.series.get(series as number) as Series),
      row: row as number,
      at: this.startedAt + (t as number),
      namespace: ns === null ? '' : (this.names.get(ns as number) ?? ''),
      latencyMs: latency as number,
    }));
    const last = events.at(-1);
    if (last && events.length >= limit) return { events, next: { at: last.at, row: last.row } };
    return { events, next: end < to ? { at: this.startedAt + end, row: 0 } : null };
  }
}
