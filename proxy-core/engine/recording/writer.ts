// Writes one session's recording (schema.ts): events are queued in memory and written in one
// transaction per flush, every 200 ms by default, in write-ahead-log mode with synchronous=NORMAL —
// a committed flush survives the process being killed, so a SIGKILL loses at most the events of the
// last flush interval. Nothing a request carried beyond its routing facts is kept: no path (names
// of objects), no query, no header but the user agent, no body, no credential (as the audit reader).
import { existsSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ClusterEvent } from '../../contract/cluster.js';
import type { RoutingEvent } from '../../contract/events.js';
import { PEERSCOPE_VERSION } from '../version.js';
import { RecordingFileError } from './check.js';
import { sqlite } from './sqlite.js';
import { Dictionary, Names } from './names.js';
import { MinuteCounts } from './rollup.js';
import { APPLICATION_ID, FORMAT_VERSION, SCHEMA, eventSources, type ChangeKind, type EventSource } from './schema.js';

export const DEFAULT_FLUSH_MS = 200;
/** A non-resource path a client made up could be any length: the dictionary keeps this much of it. */
const MAX_PATH = 256;

export interface RecordingWriterOptions {
  /** Epoch ms the session started (events are stored relative to it); default now. */
  readonly startedAt?: number;
  /** What ran the session (serve, demo, app), stored in meta. */
  readonly host?: string;
  readonly flushEveryMs?: number;
  /** A flush failed (disk full, file removed): recording stops, the port goes on. */
  readonly onError?: (err: Error) => void;
}

type SeriesRow = [number, number | null, number | null, number, number | null, number, number, number, number | null];

interface Statements {
  readonly name: StatementSync;
  readonly series: StatementSync;
  readonly event: StatementSync;
  readonly block: StatementSync;
  readonly minute: StatementSync;
  readonly change: StatementSync;
  readonly document: StatementSync;
  readonly written: StatementSync;
}

export class RecordingWriter {
  readonly startedAt: number;
  private readonly db: DatabaseSync;
  private readonly statements: Statements;
  private readonly names = new Names();
  private readonly series = new Dictionary<SeriesRow>();
  private readonly minutes = new MinuteCounts();
  /** Queued events, four numbers each: t, series, namespace id (0 = none), latency ms. */
  private queue: number[] = [];
  private changes: [number, ChangeKind, string, string][] = [];
  private documents = new Map<string, Uint8Array>();
  private readonly stored = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private failed = false;
  private closed = false;
  /** Events written (flushed) so far. */
  written = 0;

  private constructor(
    readonly file: string,
    private readonly options: RecordingWriterOptions,
  ) {
    this.startedAt = options.startedAt ?? Date.now();
    this.db = new (sqlite().DatabaseSync)(file);
    // Set before the log mode changes, so the main file's header carries them from its first write.
    this.db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${FORMAT_VERSION};`);
    this.db.exec(`BEGIN; ${SCHEMA} COMMIT;`);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    this.statements = {
      name: this.db.prepare('INSERT INTO names (id, kind, value) VALUES (?, ?, ?)'),
      series: this.db.prepare(
        'INSERT INTO series (id, source, server, answered, client, user, gvr, verb, outcome, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      event: this.db.prepare('INSERT INTO events (t, series, ns, latency) VALUES (?, ?, ?, ?)'),
      block: this.db.prepare('INSERT INTO blocks (first, last, min_t, max_t) VALUES (?, ?, ?, ?)'),
      minute: this.db.prepare(
        'INSERT INTO minutes (minute, series, count, latency) VALUES (?, ?, ?, ?) ON CONFLICT (minute, series) DO UPDATE SET count = count + excluded.count, latency = latency + excluded.latency',
      ),
      change: this.db.prepare('INSERT INTO changes (t, kind, subject, value) VALUES (?, ?, ?, ?)'),
      document: this.db.prepare('INSERT OR IGNORE INTO documents (hash, body) VALUES (?, ?)'),
      written: this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('events', ?)"),
    };
    const meta = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    meta.run('started_at', String(this.startedAt));
    meta.run('peerscope_version', PEERSCOPE_VERSION);
    meta.run('host', options.host ?? 'serve');
    this.timer = setInterval(() => this.flush(), options.flushEveryMs ?? DEFAULT_FLUSH_MS).unref();
  }

  /** Starts a recording in a new file; an existing file is never overwritten. */
  static create(file: string, options: RecordingWriterOptions = {}): RecordingWriter {
    if (existsSync(file))
      throw new RecordingFileError(file, 'already exists: a recording is written to a new file (remove it or name another)');
    try {
      return new RecordingWriter(file, options);
    } catch (err) {
      throw new RecordingFileError(file, `cannot write a recording: ${(err as Error).message}`);
    }
  }

  /** One request through the port. */
  routing(e: RoutingEvent): void {
    const n = this.names;
    const server = e.handling === null ? null : n.id('server', e.handling);
    const answered = e.answeredBy === null ? null : n.id('server', e.answeredBy);
    const client = n.id('client', e.userAgent);
    const gvr = n.id('gvr', gvrName(e));
    const verb = n.id('verb', e.verb);
    const outcome = n.id('outcome', e.outcome);
    const series = this.series.id(
      `0\u0000${server}\u0000${answered}\u0000${client}\u0000${gvr}\u0000${verb}\u0000${outcome}\u0000${e.status}`,
      (): SeriesRow => [0, server, answered, client, null, gvr, verb, outcome, e.status],
    );
    this.queueEvent(e.at, series, e.namespace, e.latencyMs);
  }

  /** One request a server answered, from its audit log or webhook. */
  cluster(e: ClusterEvent): void {
    const n = this.names;
    const source = eventSources.indexOf((e.via ?? 'audit-log') satisfies EventSource);
    const server = n.id('server', e.server);
    const client = n.id('client', e.userAgent);
    const user = n.id('user', e.user);
    const gvr = n.id('gvr', gvrName(e));
    const verb = n.id('verb', e.verb);
    const outcome = n.id('outcome', e.outcome);
    const series = this.series.id(
      `${source}\u0000${server}\u0000${client}\u0000${user}\u0000${gvr}\u0000${verb}\u0000${outcome}\u0000${e.code}`,
      (): SeriesRow => [source, server, null, client, user, gvr, verb, outcome, e.code],
    );
    this.queueEvent(e.at, series, e.namespace, e.latencyMs);
  }

  /** A change of the timeline (schema.ts changeKinds); with `document`, its content is stored once under `value` (its hash). */
  change(kind: ChangeKind, subject: string, value: string, at = Date.now(), document?: () => Uint8Array): void {
    if (this.closed) return;
    this.changes.push([at - this.startedAt, kind, subject, value]);
    if (document && !this.stored.has(value) && !this.documents.has(value)) this.documents.set(value, document());
  }

  private queueEvent(at: number, series: number, namespace: string, latencyMs: number): void {
    if (this.closed) return;
    const latency = Math.round(latencyMs);
    this.queue.push(at - this.startedAt, series, namespace ? this.names.id('namespace', namespace) : 0, latency);
    this.minutes.add(at, series, latency);
  }

  /** Writes what is queued in one transaction. */
  flush(): void {
    if (this.failed) return;
    const queue = this.queue;
    if (queue.length === 0 && this.changes.length === 0 && this.documents.size === 0) return;
    this.queue = [];
    const s = this.statements;
    try {
      this.db.exec('BEGIN');
      for (const [id, { kind, value }] of this.names.takePending()) s.name.run(id, kind, value);
      for (const [id, row] of this.series.takePending()) s.series.run(id, ...row);
      let first: number | bigint | undefined;
      let last: number | bigint = 0;
      let minT = Infinity;
      let maxT = -Infinity;
      for (let i = 0; i < queue.length; i += 4) {
        const t = queue[i]!;
        const ns = queue[i + 2]!;
        last = s.event.run(t, queue[i + 1]!, ns === 0 ? null : ns, queue[i + 3]!).lastInsertRowid;
        first ??= last;
        if (t < minT) minT = t;
        if (t > maxT) maxT = t;
      }
      if (first !== undefined) s.block.run(first, last, minT, maxT);
      for (const m of this.minutes.take()) s.minute.run(m.minute, m.series, m.count, m.latency);
      for (const c of this.changes) s.change.run(...c);
      for (const [hash, body] of this.documents) {
        s.document.run(hash, body);
        this.stored.add(hash);
      }
      // The count a reader shows without summing the rollups, committed with the events it counts.
      s.written.run(String(this.written + queue.length / 4));
      this.changes = [];
      this.documents.clear();
      this.db.exec('COMMIT');
      this.written += queue.length / 4;
    } catch (err) {
      this.failed = true;
      clearInterval(this.timer);
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // The transaction may not have begun.
      }
      this.options.onError?.(new RecordingFileError(this.file, `recording stopped: ${(err as Error).message}`));
    }
  }

  /** Writes what is queued and closes the file (its write-ahead log folded back in). */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.timer);
    this.db.close();
  }
}

/** "group/version/resource[/subresource]" (the core group as "core"); a non-resource request's path. */
export function gvrName(e: Pick<RoutingEvent, 'group' | 'version' | 'resource' | 'subresource' | 'path'>): string {
  if (!e.resource) return e.path.length > MAX_PATH ? e.path.slice(0, MAX_PATH) : e.path;
  return `${e.group || 'core'}/${e.version}/${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
}
