// The contract's calls on a window of a recording: the upgrade-impact report over the clients the
// recording counted in the window (judged by the engine's impact report, as the live screen's is, the
// servers and route table taken at the window's end) and the false 404s by client in it. Both read
// the per-minute rollups (RecordingReader.counts), so a 5-minute window of a long recording reads a
// few thousand rows. Functions of the reader, so they serve the session's own recording and one
// opened from a file alike.
import { PeerscopeError } from '../../contract/errors.js';
import type { CoreCalls } from '../../contract/client.js';
import type { ClientUsage, ImpactReport, UsageRow } from '../../contract/impact.js';
import {
  getImpactForWindowArgsSchema,
  recordingWindowSchema,
  type RecordingWindow,
  type WindowFalse404Row,
} from '../../contract/recording-window.js';
import { isClusterClient } from '../../engine/impact/cluster-usage.js';
import { impactReportOfSources } from '../../engine/impact/of-sources.js';
import type { ImpactInput } from '../../engine/impact/report.js';
import { catalogTarget, catalogTargetNames, defaultTargetName } from '../../engine/impact/targets.js';
import type { RecordingReader, SeriesCount } from '../../engine/recording/reader.js';
import { stateAt, type KnownServer } from '../../engine/recording/state-at.js';

const MINUTE_MS = 60_000;
/** The port's events carry no identity in the recording (its credential is never kept). */
export const PORT_IDENTITY_UNRECORDED = 'not recorded';

export type RecordingWindowCalls = Pick<CoreCalls, 'getImpactForWindow' | 'getFalse404sForWindow'>;

export function recordingWindowCalls(
  reader: () => RecordingReader,
  known: (name: string) => KnownServer | undefined = () => undefined,
): RecordingWindowCalls {
  return {
    async getImpactForWindow(args) {
      const { from, to, target } = getImpactForWindowArgsSchema.parse(args);
      return impactForWindow(reader(), checked({ from, to }), target, known);
    },
    async getFalse404sForWindow(args) {
      const window = checked(recordingWindowSchema.parse(args));
      return { ...window, rows: false404sForWindow(reader(), window) };
    },
  };
}

function checked(window: RecordingWindow): RecordingWindow {
  if (!(window.from < window.to))
    throw new PeerscopeError(
      'PEERSCOPE_ERR_INVALID_ARGUMENTS',
      `a window's start (from=${window.from}) must be before its end (to=${window.to})`,
    );
  return window;
}

export function impactForWindow(
  reader: RecordingReader,
  window: RecordingWindow,
  target: string | undefined,
  known: (name: string) => KnownServer | undefined = () => undefined,
): ImpactReport {
  // The servers, their discovery and the route table as they were when the window closes.
  const state = stateAt(reader, window.to, known);
  const servers = state.servers.map((s) => ({
    name: s.name,
    ...(s.displayName ? { displayName: s.displayName } : {}),
    ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
    discovered: s.discovery.state !== 'none',
  }));
  const routeTable = state.routeTable.rows.map((r) => ({ gvr: `${r.group}/${r.version}/${r.resource}`, servers: r.servers }));
  const minutes = reader.counts(window, true, (s) => s.gvr !== '' && !s.gvr.startsWith('/') && s.outcome !== 'rejected');
  const port = usageOf(
    minutes.filter((c) => c.source === 'port'),
    window,
    () => PORT_IDENTITY_UNRECORDED,
  );
  const clusterRows = minutes.filter((c) => c.source !== 'port' && isClusterClient({ user: c.user ?? '', userAgent: c.client }));
  const cluster = clusterRows.length > 0 ? usageOf(clusterRows, window, (c) => c.user || 'anonymous') : undefined;
  const input: ImpactInput = { usage: port, servers, routeTable };
  const running = servers.map((s) => ({ name: s.displayName ?? s.name, ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}) }));
  const chosen = catalogTarget(target ?? defaultTargetName(servers.map((s) => s.gitVersion)), running, target ? 'target' : '--to');
  return impactReportOfSources(
    { port: input, ...(cluster ? { cluster } : {}), statuses: state.servers },
    chosen,
    catalogTargetNames(),
    window.to,
  );
}

/** The rollups' minutes as the usage count the impact report reads: one row per client × identity × GVR × verb. */
function usageOf(minutes: readonly SeriesCount[], window: RecordingWindow, identityOf: (c: SeriesCount) => string): ClientUsage {
  const rows = new Map<string, UsageRow & { byMinute: Map<number, number> }>();
  for (const c of minutes) {
    const [group = '', version = '', resource = ''] = c.gvr.split('/');
    // The recording names the core group "core" and keeps a subresource; the report counts the resource.
    const g = group === 'core' ? '' : group;
    const identity = identityOf(c);
    const key = `${c.client}\u0000${identity}\u0000${g}/${version}/${resource}\u0000${c.verb}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        userAgent: c.client,
        identity,
        group: g,
        version,
        resource,
        verb: c.verb,
        count: 0,
        notFound: 0,
        warned: 0,
        warnings: [],
        firstAt: Math.max(c.at, window.from),
        lastAt: c.at,
        minutes: [],
        byMinute: new Map(),
      };
      rows.set(key, row);
    }
    row.count += c.count;
    if (c.code === 404) row.notFound += c.count;
    row.firstAt = Math.min(row.firstAt, Math.max(c.at, window.from));
    row.lastAt = Math.max(row.lastAt, Math.min(c.at + MINUTE_MS - 1, window.to));
    row.byMinute.set(c.at, (row.byMinute.get(c.at) ?? 0) + c.count);
  }
  return {
    since: window.from,
    at: window.to,
    windowMinutes: Math.max(1, Math.ceil((window.to - window.from) / MINUTE_MS)),
    rows: [...rows.values()].map(({ byMinute, ...row }) => ({
      ...row,
      minutes: [...byMinute].sort((a, b) => a[0] - b[0]).map(([at, count]) => ({ at, count })),
    })),
    untracked: 0,
  };
}

/** The window's false 404s per client × user × server × GVR, most first. */
export function false404sForWindow(reader: RecordingReader, window: RecordingWindow): WindowFalse404Row[] {
  const rows = new Map<string, WindowFalse404Row>();
  for (const c of reader.counts(window, true, (s) => s.outcome === 'false-404')) {
    const [group = '', version = '', resource = ''] = c.gvr.split('/');
    const g = group === 'core' ? '' : group;
    const key = `${c.client}\u0000${c.user ?? ''}\u0000${c.server ?? ''}\u0000${g}/${version}/${resource}`;
    const row = rows.get(key);
    const first = Math.max(c.at, window.from);
    rows.set(
      key,
      row
        ? { ...row, count: row.count + c.count, first: Math.min(row.first, first), last: Math.max(row.last, c.at) }
        : {
            userAgent: c.client,
            user: c.user ?? '',
            server: c.server ?? '',
            group: g,
            version,
            resource,
            count: c.count,
            first,
            last: c.at,
          },
    );
  }
  return [...rows.values()].sort((a, b) => b.count - a.count || b.last - a.last);
}
