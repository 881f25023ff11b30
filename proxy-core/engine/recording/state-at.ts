// What the screens need at a recorded moment, read back from a recording: each server's health,
// release, display name and discovery then, the route table then, and each server's health changes
// up to then — in the contract's shapes (the live calls'), so the GVR matrix and Server health render them as they are.
// Also each server's last /metrics read by then and the missing API registrations then, found again
// from the recorded discovery and what each server's legacy /apis lacked.
import type { RecordedState, RecordingTimeline } from '../../contract/recording.js';
import type { RouteTableView } from '../../contract/route-table.js';
import { healthStateSchema, type HealthState, type ServerStatus } from '../../contract/servers.js';
import { discoveryModeSchema } from '../../contract/settings.js';
import type { ServerDiscovery } from '../discovery/fetch.js';
import { missingRegistrations, type RegistrationInput } from '../discovery/missing-registration.js';
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
    // The host name it had then; the live session's where the file holds none (written before display names were).
    const displayName = reader.valueAt('display-name', name, at)?.value ?? live?.displayName;
    const metrics = reader.metricsAt(name, at);
    const { hash: _hash, since: _since, ...apiserverMetrics } = metrics ?? { hash: '', since: 0 };
    servers.push({
      name,
      ...(displayName ? { displayName } : {}),
      url: live?.url ?? '',
      source: live?.source ?? 'flag',
      health: healthOf(health.value),
      failingChecks: [],
      ...(release ? { gitVersion: release.value } : {}),
      discovery: discovery
        ? { state: 'ok', changedAt: discovery.since, fetchedAt: discovery.since, gvrCount: discovery.gvrs.length }
        : { state: 'none', gvrCount: 0 },
      ...(metrics ? { apiserverMetrics: apiserverMetrics as NonNullable<ServerStatus['apiserverMetrics']> } : {}),
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
  const missing = registrationsAt(reader, at, servers);
  return {
    ...(missing ? { missingRegistrations: missing } : {}),
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

/**
 * The findings the live route table gave then: each server's legacy /apis is what its recorded
 * discovery served less what it was recorded missing. Undefined when no registration was recorded.
 */
function registrationsAt(reader: RecordingReader, at: number, servers: readonly ServerStatus[]): RouteTableView['missingRegistrations'] {
  const recorded = new Map(reader.registrationsAt(at).map((r) => [r.server, r.groupVersions]));
  if (recorded.size === 0) return undefined;
  const inputs: RegistrationInput[] = servers.map((s) => {
    const discovery = reader.discoveryAt(s.name, at);
    if (!discovery) return { name: s.name };
    const apis = discovery.apis as ServerDiscovery['apis'];
    const lacking = recorded.get(s.name);
    const served = (apis?.items ?? []).flatMap((i) => i.versions.map((v) => `${i.metadata?.name ?? ''}/${v.version}`));
    const legacy = lacking ? { legacyGroupVersions: served.filter((gv) => !lacking.includes(gv)) } : {};
    return { name: s.name, document: { apis, ...legacy } as ServerDiscovery };
  });
  return missingRegistrations(inputs);
}
