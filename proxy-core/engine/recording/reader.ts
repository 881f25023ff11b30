// Reads a recording (schema.ts): its span, counts over a window from the per-minute rollups, the
// servers' timeline, a server's discovery at a moment, and the raw events of a window. The file is
// checked first (check.ts); a fault SQLite finds later (a page cut off mid-file) is refused the same
// way, naming the file.
import type { DatabaseSync } from 'node:sqlite';
import { inflateSync } from 'node:zlib';
import { checkRecordingFile, RecordingFileError } from './check.js';
import { sqlite } from './sqlite.js';
import type { RecordedDiscovery } from './feed.js';
import type { StoredMetrics } from './feed-cluster.js';
import { eventSources, type ChangeKind } from './schema.js';
import type { Change, RecordedEvent, RecordingInfo, Series, SeriesCount, Window } from './reader-types.js';
import type { ServerMetrics } from '../../contract/server-metrics.js';

export const MINUTE_MS = 60_000;

export type { Change, RecordedEvent, RecordingInfo, Series, SeriesCount, Window } from './reader-types.js';

/**
 * Read-write where it can be, so a session killed before its last checkpoint has its write-ahead log
 * folded back in; read-only where the file cannot be written (another user's, a read-only disk).
 */
function openForReading(file: string): DatabaseSync {
  const { DatabaseSync } = sqlite();
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file);
    db.exec('PRAGMA query_only = true; SELECT count(*) FROM meta');
    return db;
  } catch {
    db?.close();
    return new DatabaseSync(file, { readOnly: true });
  }
}

export class RecordingReader {
  private readonly db: DatabaseSync;
  private readonly names = new Map<number, string>();
  private readonly series = new Map<number, Series>();
  readonly startedAt: number;
  private readonly meta: Map<string, string>;

  private constructor(readonly file: string) {
    checkRecordingFile(file);
    try {
      this.db = openForReading(file);
      this.meta = new Map(
        this.db
          .prepare('SELECT key, value FROM meta')
          .all()
          .map((r) => [String(r.key), String(r.value)]),
      );
      for (const r of this.db.prepare('SELECT id, value FROM names').all()) this.names.set(Number(r.id), String(r.value));
      for (const r of this.rowsOf(
        'SELECT json_group_array(json_array(id, source, server, answered, client, user, gvr, verb, outcome, code)) FROM series',
      ))
        this.series.set(r[0] as number, this.seriesOf(r));
    } catch (err) {
      throw new RecordingFileError(file, `cannot be read: ${(err as Error).message}`);
    }
    const startedAt = Number(this.meta.get('started_at'));
    if (!Number.isFinite(startedAt)) throw new RecordingFileError(file, 'its meta table has no started_at: not a whole recording');
    this.startedAt = startedAt;
  }

  static open(file: string): RecordingReader {
    return new RecordingReader(file);
  }

  private seriesOf(r: (number | null)[]): Series {
    const name = (id: number | null | undefined): string | null => (id === null || id === undefined ? null : (this.names.get(id) ?? '?'));
    return {
      source: eventSources[r[1] ?? 0] ?? 'port',
      server: name(r[2]),
      answered: name(r[3]),
      client: name(r[4]) ?? '',
      user: name(r[5]),
      gvr: name(r[6]) ?? '',
      verb: name(r[7]) ?? '',
      outcome: name(r[8]) ?? '',
      code: r[9] ?? null,
    };
  }

  /**
   * The rows of a query that selects one json_group_array of json_arrays: many rows come back as one
   * string, parsed at once — several times faster than node:sqlite making an object per row.
   */
  private rowsOf(sql: string, ...params: (number | string | null)[]): (number | null)[][] {
    const json = this.all(sql, ...params)[0];
    const text = json ? Object.values(json)[0] : undefined;
    return typeof text === 'string' ? (JSON.parse(text) as (number | null)[][]) : [];
  }

  /** Runs a query, naming the file if SQLite finds it damaged. */
  private all(sql: string, ...params: (number | string | null)[]): Record<string, unknown>[] {
    try {
      return this.db.prepare(sql).all(...params) as Record<string, unknown>[];
    } catch (err) {
      throw new RecordingFileError(this.file, `cannot be read: ${(err as Error).message}`);
    }
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

  /** A stored document (discovery, route table, metrics read), parsed. */
  private document(hash: string, what: string): unknown {
    const body = this.all('SELECT body FROM documents WHERE hash = ?', hash)[0]?.body;
    if (!(body instanceof Uint8Array)) throw new RecordingFileError(this.file, `${what} ${hash} is missing`);
    return JSON.parse(inflateSync(body).toString('utf8'));
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

  seriesById(id: number): Series | undefined {
    return this.series.get(id);
  }

  nameById(id: number): string | undefined {
    return this.names.get(id);
  }

  private relative(window: Window): [number, number] {
    return [
      window.from === undefined ? Number.MIN_SAFE_INTEGER : window.from - this.startedAt,
      window.to === undefined ? Number.MAX_SAFE_INTEGER : window.to - this.startedAt,
    ];
  }

  close(): void {
    this.db.close();
  }
}
