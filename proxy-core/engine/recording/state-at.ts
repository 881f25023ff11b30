// What the screens need at a recorded moment, read back from a recording: each server's health,
// release and discovery then, the route table then, and each server's health changes up to then —
// in the contract's shapes (the live calls'), so the GVR matrix and Server health render them as they are.
import type { RecordedState, RecordingTimeline } from '../../contract/recording.js';
import type { RouteTableView } from '../../contract/route-table.js';
import { healthStateSchema, type HealthState, type ServerStatus } from '../../contract/servers.js';
import { discoveryModeSchema } from '../../contract/settings.js';
import { parseGvrKey } from '../discovery/types.js';
import type { RecordingReader } from './reader.js';

/** What the recording does not hold of a server (its address, how it was found), from the live session when it knows the server. */
export type KnownServer = Pick<ServerStatus, 'url' | 'source'> & Partial<Pick<ServerStatus, 'displayName'>>;

export function timelineOf(reader: RecordingReader): RecordingTimeline {
  const info = reader.info();
  const changes = reader.changes({}, ['health', 'release']);
  return {
    file: reader.file,
    startedAt: info.startedAt,
    endedAt: info.endedAt,
    servers: reader.servers().map((name) => ({
      name,
      changes: changes.filter((c) => c.subject === name).map((c) => ({ at: c.at, kind: c.kind as 'health' | 'release', value: c.value })),
    })),
  };
}

function healthOf(value: string | undefined): HealthState {
  const parsed = healthStateSchema.safeParse(value);
  return parsed.success ? parsed.data : 'unknown';
}

export function stateAt(reader: RecordingReader, at: number, known: (name: string) => KnownServer | undefined): RecordedState {
  const servers: ServerStatus[] = [];
  for (const name of reader.servers()) {
    const health = reader.valueAt('health', name, at);
    // Not yet seen at that moment.
    if (!health) continue;
    const release = reader.valueAt('release', name, at);
    const discovery = reader.discoveryAt(name, at);
    const live = known(name);
    servers.push({
      name,
      ...(live?.displayName ? { displayName: live.displayName } : {}),
      url: live?.url ?? '',
      source: live?.source ?? 'flag',
      health: healthOf(health.value),
      failingChecks: [],
      ...(release ? { gitVersion: release.value } : {}),
      discovery: discovery
        ? { state: 'ok', changedAt: discovery.since, fetchedAt: discovery.since, gvrCount: discovery.gvrs.length }
        : { state: 'none', gvrCount: 0 },
    });
  }
  const healthChanges = reader.changes({ to: at + 1 }, ['health']);
  const history = servers.map((s) => ({
    name: s.name,
    samples: healthChanges
      .filter((c) => c.subject === s.name)
      .map((c) => {
        const release = reader.valueAt('release', s.name, c.at);
        return { at: c.at, health: healthOf(c.value), ...(release ? { gitVersion: release.value } : {}) };
      }),
  }));
  const policy = reader.valueAt('policy', '', at)?.value;
  const mode = discoveryModeSchema.safeParse(reader.valueAt('discovery-mode', '', at)?.value);
  const settings = { ...(policy ? { policy } : {}), ...(mode.success ? { discoveryMode: mode.data } : {}) };
  return { at, servers, routeTable: routeTableAt(reader, at, servers), settings, history };
}

function routeTableAt(reader: RecordingReader, at: number, servers: readonly ServerStatus[]): RouteTableView {
  const table = reader.routeTableAt(at);
  const rows = (table?.rows ?? []).map(([key, on]) => {
    const gvr = parseGvrKey(key);
    return { group: gvr.group, version: gvr.version, resource: gvr.resource, servers: [...on] };
  });
  // As the live table counts it: a GVR some server with a discovery document does not list.
  const known = servers.filter((s) => s.discovery.state !== 'none').length;
  return {
    generation: table ? Math.max(0, Math.floor(table.since - reader.startedAt)) : 0,
    columns: servers.map((s) => ({
      name: s.name,
      health: s.health,
      discovery: s.discovery.state,
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
    })),
    rows,
    skewedCount: rows.filter((r) => r.servers.length < known).length,
  };
}
