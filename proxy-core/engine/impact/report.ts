// The upgrade-impact report: each client × GVR the port counted, classified against the current
// servers' discovery and a target release's. Pure: the same input gives the same report, live or
// from a snapshot read offline.
import {
  IMPACT_REPORT_KIND,
  clientNameOf,
  impactRank,
  type ClientUsage,
  type ImpactFinding,
  type ImpactKind,
  type ImpactReport,
  type UsageRow,
} from '../../contract/impact.js';
import { compareVersionPriority } from '../../contract/version-priority.js';
import { OTHER_CLIENTS } from '../telemetry/client-usage.js';
import { changeOf, type Change } from './direction.js';

/** What a report is made from: the shape a routing snapshot records. */
export interface ImpactInput {
  readonly usage: ClientUsage;
  /** `discovered`: the server's own discovery was read (its GVR list counts); `displayName`: what the words call it. */
  readonly servers: readonly {
    readonly name: string;
    readonly displayName?: string;
    readonly gitVersion?: string;
    readonly discovered: boolean;
  }[];
  /** "group/version/resource" → servers whose own discovery lists it. */
  readonly routeTable: readonly { readonly gvr: string; readonly servers: readonly string[] }[];
}

/** The release an upgrade goes to: its name, /version, and every GVR its discovery lists. */
export interface ImpactTarget {
  readonly release: string;
  readonly gitVersion: string;
  readonly gvrs: ReadonlySet<string>;
  /** The release as the operator named it, when that was not the catalog's name (`v1.37.2`, `1.37`). */
  readonly asked?: string;
  /** What was asked and what it was judged against, for the report to say (release-names.ts). */
  readonly note?: string;
}

const MINUTE_MS = 60_000;

export function impactReport(input: ImpactInput, target: ImpactTarget, targets: readonly string[], now = input.usage.at): ImpactReport {
  const servedBy = new Map(input.routeTable.map((r) => [r.gvr, r.servers]));
  const newestOf = newestVersions(input.routeTable, target.gvrs);
  const discovered = input.servers.filter((s) => s.discovered).map((s) => s.name);
  // The evidence lists identities (data); the message names the servers as a person knows them.
  const shown = new Map(input.servers.map((s) => [s.name, s.displayName ?? s.name]));
  const nameOf = (server: string) => shown.get(server) ?? server;
  const change = changeOf(
    input.servers.map((s) => s.gitVersion),
    target.gitVersion,
  );
  const usage = input.usage;
  const elapsedMs = Math.max(0, Math.min(usage.windowMinutes * MINUTE_MS, now - usage.since));
  // A rate over the first seconds would be a guess: until a minute has passed, it is the count so far.
  const rateSpanMs = Math.max(MINUTE_MS, elapsedMs);
  // Rows are per verb: one finding per client × GVR.
  const groups = new Map<string, UsageRow[]>();
  for (const row of usage.rows) {
    const key = `${row.userAgent}\u0000${row.identity}\u0000${row.group}/${row.version}/${row.resource}`;
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  const findings: (ImpactFinding & { total: number })[] = [];
  const clients = new Set<string>();
  for (const rows of groups.values()) {
    const first = rows[0]!;
    clients.add(`${first.userAgent}\u0000${first.identity}`);
    const gvr = `${first.group}/${first.version}/${first.resource}`;
    const servedNowBy = [...(servedBy.get(gvr) ?? [])].sort();
    const notServedNowBy = discovered.filter((s) => !servedNowBy.includes(s));
    const servedByTarget = target.gvrs.has(gvr);
    const warnings = [...new Set(rows.flatMap((r) => r.warnings))];
    const newest = newestOf.get(`${first.group}/${first.resource}`);
    const newestVersion = newest !== undefined && compareVersionPriority(newest, first.version) < 0 ? newest : undefined;
    const impact = classify(
      servedNowBy.length > 0,
      notServedNowBy.length > 0,
      servedByTarget,
      warnings.length > 0,
      newestVersion !== undefined,
    );
    if (impact === undefined) continue;
    const verbs = rows
      .map((r) => ({ verb: r.verb, count: r.count, perMinute: round(sum(r.minutes) / (rateSpanMs / MINUTE_MS)) }))
      .sort((a, b) => b.count - a.count || a.verb.localeCompare(b.verb));
    const evidence = {
      servedNowBy,
      notServedNowBy,
      servedByTarget,
      ...(newestVersion ? { newestVersion } : {}),
      notFound: sum(rows.map((r) => ({ count: r.notFound }))),
      warnings,
      firstAt: Math.min(...rows.map((r) => r.firstAt)),
      lastAt: Math.max(...rows.map((r) => r.lastAt)),
    };
    const client = {
      name: first.userAgent === OTHER_CLIENTS ? OTHER_CLIENTS : clientNameOf(first.userAgent),
      userAgent: first.userAgent,
      identity: first.identity,
    };
    const finding: ImpactFinding = {
      client,
      group: first.group,
      version: first.version,
      resource: first.resource,
      verbs,
      impact,
      message: describe(client.name, first, verbs, impact, evidence, { release: target.release, change }, nameOf),
      evidence,
      minutes: mergeMinutes(rows),
    };
    findings.push({ ...finding, total: verbs.reduce((n, v) => n + v.count, 0) });
  }
  findings.sort((a, b) => impactRank(b.impact) - impactRank(a.impact) || b.total - a.total || a.message.localeCompare(b.message));
  return {
    apiVersion: 'peerscope.dev/v1',
    kind: IMPACT_REPORT_KIND,
    at: now,
    target: {
      release: target.release,
      gitVersion: target.gitVersion,
      ...(target.asked !== undefined && target.asked !== target.release ? { asked: target.asked } : {}),
      ...(target.note && target.asked !== target.release ? { note: target.note } : {}),
    },
    current: input.servers.map((s) => ({
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
    })),
    window: { since: Math.max(usage.since, now - usage.windowMinutes * MINUTE_MS), until: now, minutes: round(elapsedMs / MINUTE_MS) },
    findings: findings.map(({ total: _total, ...f }) => f),
    clients: clients.size,
    untracked: usage.untracked,
    targets: [...targets],
  };
}

/**
 * "group/resource" → the newest version serving it: among the target's versions of it when the target
 * serves any (where a client can move to), else among the current servers'.
 */
function newestVersions(routeTable: ImpactInput['routeTable'], targetGvrs: ReadonlySet<string>): Map<string, string> {
  const newest = new Map<string, { version: string; byTarget: boolean }>();
  const consider = (gvr: string, byTarget: boolean) => {
    const [group = '', version = '', resource = ''] = gvr.split('/');
    const key = `${group}/${resource}`;
    const seen = newest.get(key);
    const better =
      !seen || (byTarget && !seen.byTarget) || (byTarget === seen.byTarget && compareVersionPriority(version, seen.version) < 0);
    if (better) newest.set(key, { version, byTarget });
  };
  for (const gvr of targetGvrs) consider(gvr, true);
  for (const r of routeTable) consider(r.gvr, false);
  return new Map([...newest].map(([key, { version }]) => [key, version]));
}

/** The most severe impact that applies, or none (served now by every server and by the target, no warning, the newest version). */
export function classify(
  servedNow: boolean,
  missingSomewhere: boolean,
  servedByTarget: boolean,
  warned: boolean,
  newerServed = false,
): ImpactKind | undefined {
  if (servedNow && !servedByTarget) return 'removed';
  if (servedNow && newerServed) return 'superseded';
  if (servedNow && missingSomewhere) return 'skewed';
  if (warned) return 'deprecated';
  if (!servedNow && servedByTarget) return 'target-only';
  return undefined;
}

const VERB_PHRASES: Record<string, string> = {
  list: 'lists',
  watch: 'watches',
  get: 'gets',
  create: 'creates',
  update: 'updates',
  patch: 'patches',
  delete: 'deletes',
  deletecollection: 'deletes collections of',
  proxy: 'proxies to',
  connect: 'connects to',
};

function describe(
  name: string,
  row: UsageRow,
  verbs: ImpactFinding['verbs'],
  impact: ImpactKind,
  e: ImpactFinding['evidence'],
  { release, change }: { release: string; change: Change },
  nameOf: (server: string) => string,
): string {
  const gvr = row.group ? `${row.group}/${row.version} ${row.resource}` : `${row.version} ${row.resource}`;
  const phrase = (verb: string) => VERB_PHRASES[verb] ?? `${verb}s`;
  const calls = verbs.map((v, i) => `${phrase(v.verb)}${i === 0 ? ` ${gvr}` : ' it'} ${rate(v.perMinute, v.count)}`).join(' and ');
  const consequence = {
    // The server's own deprecation warning, when it sent one, says so before the upgrade does.
    removed: `not served by ${release} → 404 after the ${change}${e.warnings[0] ? `; the apiserver already warns "${e.warnings[0]}"` : ''}`,
    skewed: `served by ${e.servedNowBy.map(nameOf).join(', ')} but not ${e.notServedNowBy.map(nameOf).join(', ')} → false 404s from ${e.notServedNowBy.length === 1 ? 'it' : 'them'} while the rollout runs, unless a mixed version proxy reroutes`,
    superseded: `${row.group ? `${row.group}/` : ''}${e.newestVersion ?? ''} serves it too → it will have to move there before ${row.version} is removed${e.warnings[0] ? `; the apiserver already warns "${e.warnings[0]}"` : ''}`,
    deprecated: `the apiserver warns "${e.warnings[0] ?? ''}"`,
    'target-only': `served only by ${release} → 404 now${e.notFound > 0 ? ` (${e.notFound} so far)` : ''}, answered after the ${change}`,
  }[impact];
  return `${name} ${calls}: ${consequence}`;
}

function rate(perMinute: number, count: number): string {
  if (perMinute >= 1.5) return `${Math.round(perMinute)} times a minute`;
  if (perMinute >= 0.75) return 'about once a minute';
  if (perMinute > 0) return `about once every ${Math.round(1 / perMinute)} minutes`;
  return `${count} ${count === 1 ? 'time' : 'times'}, none in the last hour`;
}

function sum(xs: readonly { count: number }[]): number {
  let n = 0;
  for (const x of xs) n += x.count;
  return n;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function mergeMinutes(rows: readonly UsageRow[]): ImpactFinding['minutes'] {
  const byMinute = new Map<number, number>();
  for (const r of rows) for (const m of r.minutes) byMinute.set(m.at, (byMinute.get(m.at) ?? 0) + m.count);
  return [...byMinute].sort((a, b) => a[0] - b[0]).map(([at, count]) => ({ at, count }));
}
