// The clients of a rollout report that break at the target release: the clients seen in the window
// whose GVRs the target does not serve. Judged by the impact report's own code (impact/), given what
// the recording counted per client × GVR × verb, as the live report is given the port's and the audit
// logs' counts; a finding it calls `removed` is a client that breaks.
import type { UsageRow } from '../../contract/impact.js';
import type { BreakingClient, RecordingReport } from '../../contract/recording-report.js';
import { isClusterClient } from '../impact/cluster-usage.js';
import { impactReportOfSources } from '../impact/of-sources.js';
import type { ImpactInput, ImpactTarget } from '../impact/report.js';
import { catalogTarget, catalogTargetNames } from '../impact/targets.js';
import { compareReleases } from '../releases/index.js';
import { InputError } from '../util/input-error.js';
import { TO_RELEASE_FLAG } from './command-names.js';
import type { RecordingReader, SeriesCount } from './reader.js';

const MINUTE_MS = 60_000;

type Judged = Pick<RecordingReport, 'target' | 'targetProblem' | 'breaking'>;

/**
 * `toRelease` as the operator named it (an unknown name is an InputError under --to-release), or by
 * default the newest release recorded; when that one is not in the catalog, no client is judged and
 * `targetProblem` says why.
 */
export function breakingClients(
  reader: RecordingReader,
  span: { from: number; to: number },
  /** The window's counts per series. */
  totals: readonly SeriesCount[],
  toRelease?: string,
): Judged {
  const servers = reader.servers().map((name) => ({
    name,
    gitVersion: (reader.valueAt('release', name, span.from) ?? reader.changes(span, ['release']).find((c) => c.subject === name))?.value,
    discovered: reader.valueAt('discovery', name, span.to - 1) !== undefined,
  }));
  const running = servers.map((s) => ({ name: s.name, ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}) }));
  const asked = toRelease ?? newestRelease(reader);
  if (asked === undefined) return { target: null, targetProblem: 'no release was recorded: give --to-release', breaking: [] };
  let target: ImpactTarget;
  try {
    target = catalogTarget(asked, running, TO_RELEASE_FLAG);
  } catch (err) {
    if (toRelease !== undefined || !(err instanceof InputError)) throw err;
    return { target: null, targetProblem: `the newest release recorded, ${err.detail}: give --to-release`, breaking: [] };
  }
  const port: ImpactInput = {
    usage: usageOf(
      totals.filter((c) => c.source === 'port'),
      span,
    ),
    servers: running.map((r, i) => ({ ...r, discovered: servers[i]!.discovered })),
    routeTable: servedInWindow(reader, span),
  };
  const cluster = usageOf(
    totals.filter((c) => c.source !== 'port' && isClusterClient({ user: c.user ?? '', userAgent: c.client })),
    span,
  );
  const report = impactReportOfSources(
    { port, ...(cluster.rows.length > 0 ? { cluster } : {}), statuses: [] },
    target,
    catalogTargetNames(),
    span.to,
  );
  const breaking: BreakingClient[] = report.findings
    .filter((f) => f.impact === 'removed' && f.source !== 'metrics')
    .map((f) => ({
      client: f.client,
      source: f.source === 'cluster-audit' ? 'cluster-audit' : 'port',
      gvr: `${f.group}/${f.version}/${f.resource}`,
      requests: f.verbs.reduce((n, v) => n + v.count, 0),
      message: f.message,
    }));
  return {
    target: { release: target.release, gitVersion: target.gitVersion, asked, ...(target.note ? { note: target.note } : {}) },
    breaking,
  };
}

/** The newest release any server ran in the whole recording. */
function newestRelease(reader: RecordingReader): string | undefined {
  const seen = [...new Set(reader.changes({}, ['release']).map((c) => c.value))];
  return seen.sort(compareReleases).at(-1);
}

/** Each GVR with every server whose discovery listed it at some moment of the window: what a client could call then. */
function servedInWindow(reader: RecordingReader, span: { from: number; to: number }): ImpactInput['routeTable'] {
  const tables = [reader.routeTableAt(span.from), ...reader.changes(span, ['route-table']).map((c) => reader.routeTableAt(c.at))];
  const servedBy = new Map<string, Set<string>>();
  for (const table of tables)
    for (const [gvr, servers] of table?.rows ?? []) {
      const set = servedBy.get(gvr) ?? new Set<string>();
      for (const s of servers) set.add(s);
      servedBy.set(gvr, set);
    }
  return [...servedBy].map(([gvr, servers]) => ({ gvr, servers: [...servers].sort() }));
}

/**
 * The recording's resource requests per client × GVR × verb over the window, in the shape the impact
 * report reads (a client's usage). Each row's minutes are its total at the window's start: the judge
 * reads them only for the rate it words (total / minutes of the window), and reading every series'
 * minutes of a two-hour window cost seconds.
 */
function usageOf(counts: readonly SeriesCount[], span: { from: number; to: number }) {
  const rows = new Map<string, UsageRow>();
  for (const c of counts) {
    // A non-resource request is stored as its path; a refused one never reached a server's API.
    if (c.gvr.startsWith('/') || c.outcome === 'rejected') continue;
    const [group = '', version = '', resource = ''] = c.gvr.split('/');
    const identity = c.source === 'port' ? '' : c.user || 'anonymous';
    const key = `${c.client}\u0000${identity}\u0000${c.gvr}\u0000${c.verb}`;
    const row = rows.get(key) ?? {
      userAgent: c.client,
      identity,
      group: group === 'core' ? '' : group,
      version,
      resource,
      verb: c.verb,
      count: 0,
      notFound: 0,
      warned: 0,
      warnings: [],
      firstAt: span.from,
      lastAt: span.to,
      minutes: [{ at: span.from, count: 0 }],
    };
    row.count += c.count;
    row.minutes[0]!.count += c.count;
    if (c.code === 404) row.notFound += c.count;
    rows.set(key, row);
  }
  return {
    since: span.from,
    at: span.to,
    windowMinutes: Math.max(1, Math.ceil((span.to - span.from) / MINUTE_MS)),
    rows: [...rows.values()],
    untracked: 0,
  };
}
