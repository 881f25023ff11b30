// `peerscope recording export`: a recording's events, per-minute rollups and timeline changes as three
// Parquet files (events.parquet, minutes.parquet, changes.parquet), each row with its series' strings
// resolved, for a team to load many clusters' rollouts into the engine it runs (DuckDB, ClickHouse,
// Spark, BigQuery). Streamed in bounded memory: events are read by rowid ranges and minutes by key
// ranges, a block at a time, and written a row group at a time — a 36-million-event recording never
// sits in memory.
import { existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errnoWords } from '../util/errno.js';
import { RecordingFileError } from './check.js';
import { ParquetTable, type ColumnSpec } from './export-table.js';
import { GrowthLimit } from '../util/collect.js';
import { EXPORT_FILES } from './command-names.js';
import { MINUTE_MS, type RecordingReader, type Series, type Window } from './reader.js';

/** Rows read from the file at a time: larger reads leave more of SQLite's and V8's memory behind (docs/decisions.md). */
const READ_ROWS = 4_096;
/** Rows per row group: large enough for readers' scans, small enough to keep the writer's garbage small (docs/decisions.md). */
export const ROW_GROUP_ROWS = 32_768;
/**
 * RSS growth over the export's start that makes a full collection worth its pause (~30 ms): the
 * writer's per-group garbage is large objects only a full collection frees (docs/decisions.md).
 */
const GROWTH_WORTH_COLLECTING = 48 * 1024 * 1024;

export { EXPORT_FILES };

/** The series' columns, resolved: where the request went, who made it, what it asked and how it ended. */
const SERIES_COLUMNS: ColumnSpec[] = [
  { name: 'source', kind: 'string' },
  { name: 'server', kind: 'string', optional: true },
  { name: 'answered_by', kind: 'string', optional: true },
  { name: 'client', kind: 'string' },
  { name: 'user', kind: 'string', optional: true },
  { name: 'group', kind: 'string', optional: true },
  { name: 'version', kind: 'string', optional: true },
  { name: 'resource', kind: 'string', optional: true },
  { name: 'subresource', kind: 'string', optional: true },
  { name: 'path', kind: 'string', optional: true },
  { name: 'verb', kind: 'string' },
  { name: 'outcome', kind: 'string' },
  { name: 'code', kind: 'int32', optional: true },
];

const EVENT_COLUMNS: ColumnSpec[] = [
  { name: 'time', kind: 'time' },
  ...SERIES_COLUMNS,
  { name: 'namespace', kind: 'string', optional: true },
  { name: 'latency_ms', kind: 'int32' },
];
const MINUTE_COLUMNS: ColumnSpec[] = [
  { name: 'minute', kind: 'time' },
  ...SERIES_COLUMNS,
  { name: 'count', kind: 'int64' },
  { name: 'latency_ms_sum', kind: 'int64' },
];
const CHANGE_COLUMNS: ColumnSpec[] = [
  { name: 'time', kind: 'time' },
  { name: 'kind', kind: 'string' },
  { name: 'subject', kind: 'string' },
  { name: 'value', kind: 'string' },
];

export interface ExportOptions extends Window {
  /** Told the events written so far, after each block. */
  readonly onProgress?: (events: number) => void;
  readonly rowGroupRows?: number;
}

export interface ExportResult {
  readonly dir: string;
  readonly events: number;
  readonly minutes: number;
  readonly changes: number;
}

/**
 * A series' columns: a GVR name ("core/v1/pods/log", the core group as "core") split into group,
 * version, resource and subresource; a non-resource request's path in `path`.
 */
export function seriesColumns(s: Series): unknown[] {
  const resource = !s.gvr.startsWith('/');
  const [group = '', version = '', name = '', ...sub] = resource ? s.gvr.split('/') : [];
  return [
    s.source,
    s.server,
    s.answered,
    s.client,
    s.user,
    resource ? (group === 'core' ? '' : group) : null,
    resource ? version : null,
    resource ? name : null,
    resource && sub.length > 0 ? sub.join('/') : null,
    resource ? null : s.gvr,
    s.verb,
    s.outcome,
    s.code,
  ];
}

/** Writes the three files into `dir` (made if missing); refuses to write over an export already there. */
export function exportRecording(reader: RecordingReader, dir: string, options: ExportOptions = {}): ExportResult {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new RecordingFileError(dir, `cannot make the folder: ${errnoWords(err)}`);
  }
  for (const name of Object.values(EXPORT_FILES)) {
    const file = join(dir, name);
    if (existsSync(file))
      throw new RecordingFileError(file, 'already exists: an export is written to new files (remove them or name another folder)');
  }
  const window: Window = {
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.to !== undefined ? { to: options.to } : {}),
  };
  const metadata = {
    'peerscope.recording': basename(reader.file),
    'peerscope.started_at': new Date(reader.startedAt).toISOString(),
    ...(window.from !== undefined ? { 'peerscope.from': new Date(window.from).toISOString() } : {}),
    ...(window.to !== undefined ? { 'peerscope.to': new Date(window.to).toISOString() } : {}),
  };
  const layout: Layout = {
    rowGroupRows: options.rowGroupRows ?? ROW_GROUP_ROWS,
    metadata,
    limit: new GrowthLimit(GROWTH_WORTH_COLLECTING),
  };
  const resolved = new Map<number, unknown[]>();
  const columnsOf = (id: number): unknown[] => {
    let c = resolved.get(id);
    if (!c) {
      const s = reader.seriesById(id);
      if (!s) throw new RecordingFileError(reader.file, `series ${id} is missing`);
      resolved.set(id, (c = seriesColumns(s)));
    }
    return c;
  };
  const events = write(join(dir, EXPORT_FILES.events), EVENT_COLUMNS, layout, (table) => {
    const span = reader.eventSpan(window);
    if (!span) return;
    for (let first = span.first; first <= span.last; first += READ_ROWS) {
      for (const [t, series, ns, latency] of reader.eventRows(first, Math.min(first + READ_ROWS - 1, span.last), window)) {
        // Cell by cell into the row group's columns: no array made per row.
        const { columns: c, row } = table;
        c[0]![row] = reader.startedAt + t!;
        const s = columnsOf(series!);
        for (let i = 0; i < s.length; i++) c[i + 1]![row] = s[i];
        c[s.length + 1]![row] = ns === null ? null : (reader.nameById(ns!) ?? null);
        c[s.length + 2]![row] = latency;
        table.endRow();
      }
      options.onProgress?.(table.rows + table.row);
    }
  });
  const minutes = write(join(dir, EXPORT_FILES.minutes), MINUTE_COLUMNS, layout, (table) => {
    const toMinute = window.to === undefined ? Number.MAX_SAFE_INTEGER : Math.floor((window.to - 1) / MINUTE_MS);
    let after: [number, number] = [window.from === undefined ? -1 : Math.floor(window.from / MINUTE_MS) - 1, Number.MAX_SAFE_INTEGER];
    for (;;) {
      const block = reader.minuteRows(after, toMinute, READ_ROWS);
      for (const [minute, series, count, latency] of block) table.add([minute! * MINUTE_MS, ...columnsOf(series!), count, latency]);
      if (block.length < READ_ROWS) return;
      const last = block.at(-1)!;
      after = [last[0]!, last[1]!];
    }
  });
  const changes = write(join(dir, EXPORT_FILES.changes), CHANGE_COLUMNS, layout, (table) => {
    for (const c of reader.changes(window)) table.add([c.at, c.kind, c.subject, c.value]);
  });
  return { dir, events, minutes, changes };
}

/** What the three files share: their row groups' size, their key-value metadata, the export's growth limit. */
interface Layout {
  readonly rowGroupRows: number;
  readonly metadata: Record<string, string>;
  readonly limit: GrowthLimit;
}

/** One file: `fill` adds its rows; a failure leaves no file behind. Answers the rows written. */
function write(file: string, columns: readonly ColumnSpec[], layout: Layout, fill: (table: ParquetTable) => void): number {
  const table = new ParquetTable(file, columns, layout.rowGroupRows, layout.metadata, layout.limit);
  try {
    fill(table);
    table.finish();
  } catch (err) {
    table.abandon();
    throw err;
  }
  return table.rows;
}
