// A routing snapshot of a recorded moment, from a RecordingReader (the session's own recording, or a
// file opened offline): the servers with their health, release, discovery and last /metrics read then,
// the route table then, the settings then, and the port's counters up to that moment (whole minutes
// from the rollups, the moment's own minute from the raw events). What the recording does not hold —
// the recent requests as the port logged them, client usage, the impact report, the merged discovery
// document, the cluster source's summary, the servers' addresses and probes — is left out and named in
// `recorded.omitted`, in the same snapshot format `snapshot show`, `snapshot diff` and the app read.
import { basename } from 'node:path';
import { PeerscopeError } from '../../contract/errors.js';
import type { SnapshotRecorded } from '../../contract/snapshot-at.js';
import { SNAPSHOT_API_VERSION, SNAPSHOT_KIND, type RoutingSnapshot, type SnapshotServer } from '../../contract/snapshot.js';
import type { RouteOutcome } from '../../contract/events.js';
import type { RecordingReader, Series } from '../../engine/recording/reader.js';
import { stateAt, type KnownServer } from '../../engine/recording/state-at.js';
import { PEERSCOPE_VERSION } from '../../engine/version.js';

const MINUTE_MS = 60_000;
/** The moment's own minute, read event by event: at 5,000 events/s a minute is 300,000. */
const MAX_MINUTE_EVENTS = 2_000_000;

export interface SnapshotAtOptions {
  /** What the live session knows of a server the recording names (its address); offline, nothing. */
  readonly known?: (name: string) => KnownServer | undefined;
  /** Include every server's /api and /apis documents as recorded (larger files). */
  readonly documents?: boolean;
}

const OMITTED: SnapshotRecorded['omitted'] = [
  {
    part: 'events',
    reason:
      'the recording keeps no request path, method or byte counts, so the recent requests are not listed; counters hold every request',
  },
  { part: 'usage', reason: 'client usage is counted by the live session only; `peerscope recording report` has the clients per window' },
  { part: 'impact', reason: 'the upgrade-impact report is made by the live session only' },
  { part: 'mergedDiscovery', reason: 'the peer-aggregated discovery document the port answered is not recorded' },
  {
    part: 'cluster',
    reason: 'the cluster source’s summary is not rebuilt from the recording; `peerscope recording report` has its requests by outcome',
  },
  { part: 'servers latency, failing checks and own proxy', reason: 'the probes’ details are not recorded, only each server’s health' },
];

/** The snapshot of `reader`'s recording at `at` (epoch ms); refused outside the recording's span. */
export function snapshotAt(reader: RecordingReader, at: number, options: SnapshotAtOptions = {}): RoutingSnapshot {
  const info = reader.info();
  if (!(at >= info.startedAt && at <= info.endedAt))
    throw new PeerscopeError(
      'PEERSCOPE_ERR_INPUT',
      `${reader.file}: ${new Date(at).toISOString()} is outside the recording (${new Date(info.startedAt).toISOString()} to ${new Date(info.endedAt).toISOString()})`,
    );
  const known = options.known ?? (() => undefined);
  const state = stateAt(reader, at, known);
  const servers: SnapshotServer[] = state.servers.map((s) => {
    const d = reader.discoveryAt(s.name, at);
    return {
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      url: s.url,
      source: s.source,
      health: s.health,
      failingChecks: [],
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      ...(s.apiserverMetrics ? { apiserverMetrics: s.apiserverMetrics } : {}),
      discovery: {
        state: d ? 'ok' : 'none',
        ...(d ? { changedAt: d.since } : {}),
        gvrs: d ? [...d.gvrs].sort() : [],
        ...(options.documents && d ? { documents: { api: d.api, apis: d.apis } } : {}),
      },
    };
  });
  const withDiscovery = servers.filter((s) => s.discovery.state !== 'none').length;
  const rows = (reader.routeTableAt(at)?.rows ?? []).map(([gvr, on]) => ({ gvr, servers: [...on] }));
  const addresses = servers.some((s) => !s.url)
    ? [{ part: 'servers url', reason: 'the recording names each server but keeps no address; known only to the session that recorded it' }]
    : [];
  const settingsMissing = !state.settings.policy || !state.settings.discoveryMode;
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: SNAPSHOT_KIND,
    takenAt: new Date(at).toISOString(),
    source: { kind: info.host === 'demo' ? 'sim' : 'servers', peerscopeVersion: PEERSCOPE_VERSION },
    settings: { discoveryMode: state.settings.discoveryMode ?? 'peer-aggregated', policy: state.settings.policy ?? 'round-robin' },
    servers,
    routeTable: { rows, skewed: rows.filter((r) => r.servers.length < withDiscovery).map((r) => r.gvr) },
    counters: countersAt(reader, at),
    events: [],
    recorded: {
      file: basename(reader.file),
      at: new Date(at).toISOString(),
      omitted: [
        ...OMITTED,
        ...addresses,
        ...(settingsMissing
          ? [{ part: 'settings', reason: 'the recording has no policy or discovery mode by then: the defaults are shown' }]
          : []),
      ],
    },
  };
}

type Counter = RoutingSnapshot['counters'][number];

/**
 * The port's requests up to and including `at`'s millisecond (as the state is: a snapshot at the
 * recording's end holds every request), as the live counters key them: outcome × GVR (no
 * subresource) × handling × answering server.
 */
function countersAt(reader: RecordingReader, at: number): Counter[] {
  const minuteStart = Math.floor(at / MINUTE_MS) * MINUTE_MS;
  const counters = new Map<string, Counter>();
  const add = (s: Series, count: number) => {
    const gvr = counterGvr(s.gvr);
    const key = `${s.outcome}\u0000${gvr}\u0000${s.server ?? ''}\u0000${s.answered ?? ''}`;
    const row = counters.get(key);
    if (row) row.count += count;
    else
      counters.set(key, {
        outcome: s.outcome as RouteOutcome,
        gvr,
        handling: s.server ?? '',
        answeredBy: s.answered ?? '',
        count,
      });
  };
  const port = (s: Series) => s.source === 'port';
  for (const c of reader.counts({ to: minuteStart }, false, port)) add(c, c.count);
  for (const e of reader.events({ from: minuteStart, to: at + 1 }, MAX_MINUTE_EVENTS)) if (port(e)) add(e, 1);
  return [...counters.values()];
}

/** A recorded GVR name ("core/v1/pods/log", a non-resource path) as a counter's GVR key ("/v1/pods", ''). */
function counterGvr(name: string): string {
  if (name.startsWith('/')) return '';
  const [group = '', version = '', resource = ''] = name.split('/');
  return `${group === 'core' ? '' : group}/${version}/${resource}`;
}
