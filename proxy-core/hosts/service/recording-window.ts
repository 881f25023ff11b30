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
import type { RecordingReader, Series, SeriesCount } from '../../engine/recording/reader.js';
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
  // Totals per series (one row each, however long the window), then the minutes of the findings' series alone.
  const totals = reader.counts(window).filter(isClientRequest);
  const port = usageOf(
    totals.filter((c) => c.source === 'port'),
    window,
  );
  const clusterRows = totals.filter((c) => c.source !== 'port');
  const cluster = clusterRows.length > 0 ? usageOf(clusterRows, window) : undefined;
  const input: ImpactInput = { usage: port, servers, routeTable };
  const running = servers.map((s) => ({ name: s.displayName ?? s.name, ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}) }));
  const chosen = catalogTarget(target ?? defaultTargetName(servers.map((s) => s.gitVersion)), running, target ? 'target' : '--to');
  const report = impactReportOfSources(
    { port: input, ...(cluster ? { cluster } : {}), statuses: state.servers },
    chosen,
    catalogTargetNames(),
    window.to,
  );
  return withMinutes(reader, window, report);
}

/** A request a client of the cluster made for a resource, as the impact report counts them (the port's, or the audit logs' less Peerscope's own). */
function isClientRequest(s: Series): boolean {
  if (s.gvr === '' || s.gvr.startsWith('/') || s.outcome === 'rejected') return false;
  return s.source === 'port' || isClusterClient({ user: s.user ?? '', userAgent: s.client });
}

/** The recording's "group/version/resource[/subresource]" (the core group named "core") as the report's group, version and resource. */
function gvrOf(name: string): { group: string; version: string; resource: string } {
  const [group = '', version = '', resource = ''] = name.split('/');
  return { group: group === 'core' ? '' : group, version, resource };
}

function identityOf(s: Series): string {
  return s.source === 'port' ? PORT_IDENTITY_UNRECORDED : s.user || 'anonymous';
}

/** Which finding a series counts toward: its source as the report names it, client, identity and GVR. */
function findingKey(source: string, userAgent: string, identity: string, g: { group: string; version: string; resource: string }): string {
  return `${source}\u0000${userAgent}\u0000${identity}\u0000${g.group}/${g.version}/${g.resource}`;
}

/**
 * Each finding's requests per minute and its first and last minute, read for the findings' series only
 * (the usage was counted from totals, which set the rates right but have no minutes).
 */
function withMinutes(reader: RecordingReader, window: RecordingWindow, report: ImpactReport): ImpactReport {
  const keyOf = (s: Series) => findingKey(s.source === 'port' ? 'port' : 'cluster-audit', s.client, identityOf(s), gvrOf(s.gvr));
  const wanted = new Set(
    report.findings
      .filter((f) => f.source !== 'metrics')
      .map((f) => findingKey(f.source ?? 'port', f.client.userAgent, f.client.identity, f)),
  );
  if (wanted.size === 0) return report;
  const byFinding = new Map<string, Map<number, number>>();
  for (const c of reader.counts(window, true, (s) => isClientRequest(s) && wanted.has(keyOf(s)))) {
    const key = keyOf(c);
    const minutes = byFinding.get(key) ?? new Map<number, number>();
    minutes.set(c.at, (minutes.get(c.at) ?? 0) + c.count);
    byFinding.set(key, minutes);
  }
  const findings = report.findings.map((f) => {
    const minutes = byFinding.get(findingKey(f.source ?? 'port', f.client.userAgent, f.client.identity, f));
    if (!minutes) return f;
    const sorted = [...minutes].sort((a, b) => a[0] - b[0]).map(([at, count]) => ({ at, count }));
    const first = Math.max(sorted[0]!.at, window.from);
    const last = Math.min(sorted.at(-1)!.at + MINUTE_MS - 1, window.to - 1);
    return { ...f, minutes: sorted, evidence: { ...f.evidence, firstAt: first, lastAt: last } };
  });
  return { ...report, findings };
}

/**
 * The window's totals as the usage count the impact report reads: one row per client × identity × GVR
 * × verb, each counted in one "minute" at the window's start, so the report's rate is over the window.
 */
function usageOf(totals: readonly SeriesCount[], window: RecordingWindow): ClientUsage {
  const rows = new Map<string, UsageRow>();
  for (const c of totals) {
    // The report counts a resource's subresource requests as the resource's.
    const gvr = gvrOf(c.gvr);
    const identity = identityOf(c);
    const key = `${findingKey('', c.client, identity, gvr)}\u0000${c.verb}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        userAgent: c.client,
        identity,
        ...gvr,
        verb: c.verb,
        count: 0,
        notFound: 0,
        warned: 0,
        warnings: [],
        firstAt: window.from,
        lastAt: window.to - 1,
        minutes: [],
      };
      rows.set(key, row);
    }
    row.count += c.count;
    if (c.code === 404) row.notFound += c.count;
  }
  return {
    since: window.from,
    at: window.to,
    windowMinutes: Math.max(1, Math.ceil((window.to - window.from) / MINUTE_MS)),
    rows: [...rows.values()].map((row) => ({ ...row, minutes: row.count > 0 ? [{ at: window.from, count: row.count }] : [] })),
    untracked: 0,
  };
}

/** The window's false 404s per client × user × server × GVR, most first. */
export function false404sForWindow(reader: RecordingReader, window: RecordingWindow): WindowFalse404Row[] {
  const rows = new Map<string, WindowFalse404Row>();
  for (const c of reader.counts(window, true, (s) => s.outcome === 'false-404')) {
    const { group: g, version, resource } = gvrOf(c.gvr);
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
