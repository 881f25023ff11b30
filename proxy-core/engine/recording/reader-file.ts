// The recording file as its reader opens it (reader.ts builds its queries on this): the header check,
// the open that folds a killed session's write-ahead log back in, the names and series dictionaries
// (caught up as a file still being written grows), and the query helpers that name the file when
// SQLite finds it damaged.
import type { DatabaseSync } from 'node:sqlite';
import { inflateSync } from 'node:zlib';
import { checkRecordingFile, RecordingFileError } from './check.js';
import { sqlite } from './sqlite.js';
import { eventSources } from './schema.js';
import type { Series, Window } from './reader-types.js';

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

export abstract class RecordingFile {
  protected readonly db: DatabaseSync;
  protected readonly names = new Map<number, string>();
  protected readonly series = new Map<number, Series>();
  /** The highest name and series ids read (catchUp). */
  protected lastName = 0;
  protected lastSeries = 0;
  readonly startedAt: number;
  protected readonly meta: Map<string, string>;

  protected constructor(readonly file: string) {
    checkRecordingFile(file);
    try {
      this.db = openForReading(file);
      this.meta = new Map(
        this.db
          .prepare('SELECT key, value FROM meta')
          .all()
          .map((r) => [String(r.key), String(r.value)]),
      );
      this.catchUp();
    } catch (err) {
      throw new RecordingFileError(file, `cannot be read: ${(err as Error).message}`);
    }
    const startedAt = Number(this.meta.get('started_at'));
    if (!Number.isFinite(startedAt)) throw new RecordingFileError(file, 'its meta table has no started_at: not a whole recording');
    this.startedAt = startedAt;
  }

  /**
   * Reads the names and series written since last read: a reader kept open on the session's own
   * recording (the app's) would otherwise not know a client, GVR or outcome first seen after it opened.
   */
  protected catchUp(): void {
    for (const r of this.all('SELECT id, value FROM names WHERE id > ?', this.lastName)) {
      this.names.set(Number(r.id), String(r.value));
      this.lastName = Math.max(this.lastName, Number(r.id));
    }
    for (const r of this.rowsOf(
      'SELECT json_group_array(json_array(id, source, server, answered, client, user, gvr, verb, outcome, code)) FROM series WHERE id > ?',
      this.lastSeries,
    )) {
      this.series.set(r[0] as number, this.seriesOf(r));
      this.lastSeries = Math.max(this.lastSeries, r[0] as number);
    }
  }

  protected seriesOf(r: (number | null)[]): Series {
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
  protected rowsOf(sql: string, ...params: (number | string | null)[]): (number | null)[][] {
    const json = this.all(sql, ...params)[0];
    const text = json ? Object.values(json)[0] : undefined;
    return typeof text === 'string' ? (JSON.parse(text) as (number | null)[][]) : [];
  }

  /** Runs a query, naming the file if SQLite finds it damaged. */
  protected all(sql: string, ...params: (number | string | null)[]): Record<string, unknown>[] {
    try {
      return this.db.prepare(sql).all(...params) as Record<string, unknown>[];
    } catch (err) {
      throw new RecordingFileError(this.file, `cannot be read: ${(err as Error).message}`);
    }
  }

  /** A stored document (discovery, route table, metrics read), parsed. */
  protected document(hash: string, what: string): unknown {
    const body = this.all('SELECT body FROM documents WHERE hash = ?', hash)[0]?.body;
    if (!(body instanceof Uint8Array)) throw new RecordingFileError(this.file, `${what} ${hash} is missing`);
    return JSON.parse(inflateSync(body).toString('utf8'));
  }

  seriesById(id: number): Series | undefined {
    return this.series.get(id);
  }

  nameById(id: number): string | undefined {
    return this.names.get(id);
  }

  protected relative(window: Window): [number, number] {
    return [
      window.from === undefined ? Number.MIN_SAFE_INTEGER : window.from - this.startedAt,
      window.to === undefined ? Number.MAX_SAFE_INTEGER : window.to - this.startedAt,
    ];
  }

  close(): void {
    this.db.close();
  }
}
