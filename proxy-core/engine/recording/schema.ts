// The recording's file format: one SQLite database per session (docs/decisions.md, "Recording").
// Size is the constraint (at most 40 bytes per event, rollups included), so an event row holds only
// integers: its time as milliseconds since the session started, and the id of its series — the
// combination of source, servers, client, GVR, verb, outcome and code it shares with every other
// request of that kind — whose strings are stored once, in `names`. The per-minute rollups count
// events per series, so every screen's question over a window is a scan of minutes, not of events.

/** SQLite's header field for "which application's file is this" (offset 68): "PSRC". */
export const APPLICATION_ID = 0x50535243;
/** SQLite's user_version (header offset 60): the recording format's version. */
export const FORMAT_VERSION = 1;
/** How a recording's file name ends: what a folder's listing and its retention count as recordings. */
export const RECORDING_SUFFIX = '.recording.sqlite';

/** Where each kind of event came from; the port's, or the cluster source's (its audit log files, its webhook). */
export const eventSources = ['port', 'audit-log', 'audit-webhook'] as const;
export type EventSource = (typeof eventSources)[number];

/** What a name in `names` names. */
export const nameKinds = ['server', 'client', 'user', 'gvr', 'verb', 'outcome', 'namespace'] as const;
export type NameKind = (typeof nameKinds)[number];

/** The timeline's kinds of change. */
export const changeKinds = [
  /** A server's health (ready, not-ready, unreachable, …); `subject` the server. */
  'health',
  /** A server's release (its /version gitVersion). */
  'release',
  /** A server's discovery content: `value` the hash of the document in `documents`. */
  'discovery',
  /** A server's discovery read: ok, stale (the last read failed, its previous document kept) or none (never read). */
  'discovery-state',
  /** A server joined, left, came back, was removed or moved (membership). */
  'membership',
  /** The route table (GVR → servers): `value` the hash of its rows in `documents`. */
  'route-table',
  /** The handling policy of the port. */
  'policy',
  /** The discovery mode of the port. */
  'discovery-mode',
  /**
   * The API registrations a server's legacy /apis lacks (discovery/missing-registration.ts): `subject`
   * the server, `value` its missing group/versions sorted and comma-joined, '' when none.
   */
  'registration',
  /** A rollout step as it is taken (the simulated cluster's controller): `subject` the server or '', `value` one line. */
  'step',
  /** What a server's /metrics read gave (its request counts): `value` the hash of the summary in `documents`. */
  'metrics',
  /**
   * What a person reads for a server (ServerStatus.displayName: its lease's host name): `subject` the
   * identity, `value` the display name. Files written before it lack it: readers show the identity.
   */
  'display-name',
] as const;
export type ChangeKind = (typeof changeKinds)[number];

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE names (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL, UNIQUE (kind, value));
-- One row per kind of request; 'answered' only for the port's events (null: the port answered itself), 'user' only for the cluster's.
CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL,
  server INTEGER,
  answered INTEGER,
  client INTEGER NOT NULL,
  user INTEGER,
  gvr INTEGER NOT NULL,
  verb INTEGER NOT NULL,
  outcome INTEGER NOT NULL,
  code INTEGER
);
-- t: milliseconds since the session started (meta started_at); ns: a namespace name id, null when cluster-scoped.
CREATE TABLE events (t INTEGER NOT NULL, series INTEGER NOT NULL, ns INTEGER, latency INTEGER NOT NULL);
-- One row per flush: the rowids it wrote and the times they span, so a window finds its events without an index on t.
CREATE TABLE blocks (first INTEGER PRIMARY KEY, last INTEGER NOT NULL, min_t INTEGER NOT NULL, max_t INTEGER NOT NULL);
CREATE INDEX blocks_max_t ON blocks (max_t);
-- minute: minutes since the epoch.
CREATE TABLE minutes (minute INTEGER NOT NULL, series INTEGER NOT NULL, count INTEGER NOT NULL, latency INTEGER NOT NULL, PRIMARY KEY (minute, series)) WITHOUT ROWID;
CREATE TABLE changes (t INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX changes_subject ON changes (kind, subject, t);
-- Discovery documents and route tables, content-addressed: stored once per distinct content.
CREATE TABLE documents (hash TEXT PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
`;
