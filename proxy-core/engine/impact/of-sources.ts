// A live core's upgrade-impact report from every source it has: the port's clients, the cluster's
// clients from the apiservers' audit logs (the cluster source), and the deprecated APIs the servers'
// own /metrics say someone requested (apiserver_requested_deprecated_apis: no client named). Each
// finding says which source it comes from; the same client and GVR seen by the port and in the audit
// logs are two findings, as the two counts are of different requests.
import { impactRank, type ClientUsage, type ImpactFinding, type ImpactFindingSource, type ImpactReport } from '../../contract/impact.js';
import type { ServerStatus } from '../../contract/servers.js';
import { classify, impactReport, type ImpactInput, type ImpactTarget } from './report.js';

const MINUTE_MS = 60_000;

/** Who a /metrics finding is about: the server counts that a deprecated API was requested, not by whom. */
export const METRICS_CLIENT = { name: '(a client /metrics does not name)', userAgent: '', identity: 'any' } as const;

export interface SourcesInput {
  readonly port: ImpactInput;
  /** The cluster source's usage; absent when the core follows no audit log. */
  readonly cluster?: ClientUsage;
  /** The servers as the core sees them now (their /metrics reads among them), or as a snapshot recorded them. */
  readonly statuses: readonly Pick<ServerStatus, 'name' | 'apiserverMetrics'>[];
}

export function impactReportOfSources(input: SourcesInput, target: ImpactTarget, targets: readonly string[], now: number): ImpactReport {
  const port = impactReport(input.port, target, targets, now);
  const sources: ImpactFindingSource[] = ['port'];
  const findings: ImpactFinding[] = port.findings.map((f) => ({ ...f, source: 'port' }));
  let since = input.port.usage.since;
  if (input.cluster) {
    sources.push('cluster-audit');
    const cluster = impactReport({ ...input.port, usage: input.cluster }, target, targets, now);
    findings.push(...cluster.findings.map((f) => ({ ...f, source: 'cluster-audit' as const })));
    since = Math.min(since, input.cluster.since);
  }
  const metrics = metricsFindings(input, target, findings);
  if (input.statuses.some((s) => s.apiserverMetrics?.state === 'read')) sources.push('metrics');
  findings.push(...metrics);
  const volume = (f: ImpactFinding) => f.verbs.reduce((n, v) => n + v.count, 0);
  findings.sort((a, b) => impactRank(b.impact) - impactRank(a.impact) || volume(b) - volume(a) || a.message.localeCompare(b.message));
  const clients = new Set<string>();
  for (const usage of [input.port.usage, input.cluster].filter((u) => u !== undefined))
    for (const r of usage.rows) clients.add(`${r.userAgent}\u0000${r.identity}`);
  const windowSince = Math.max(since, now - input.port.usage.windowMinutes * MINUTE_MS);
  return {
    ...port,
    window: { since: windowSince, until: now, minutes: Math.round(((now - windowSince) / MINUTE_MS) * 100) / 100 },
    sources,
    findings,
    clients: clients.size,
    untracked: port.untracked + (input.cluster?.untracked ?? 0),
  };
}

/** One finding per deprecated GVR a server's /metrics lists that no client finding already covers. */
function metricsFindings(input: SourcesInput, target: ImpactTarget, covered: readonly ImpactFinding[]): ImpactFinding[] {
  const seen = new Set(covered.map((f) => `${f.group}/${f.version}/${f.resource}`));
  const servedBy = new Map(input.port.routeTable.map((r) => [r.gvr, [...r.servers].sort()]));
  const discovered = input.port.servers.filter((s) => s.discovered).map((s) => s.name);
  const shown = new Map(input.port.servers.map((s) => [s.name, s.displayName ?? s.name]));
  const byGvr = new Map<
    string,
    { group: string; version: string; resource: string; removedRelease: string; servers: string[]; at: number }
  >();
  for (const s of input.statuses) {
    const m = s.apiserverMetrics;
    if (m?.state !== 'read' || !m.deprecatedApis) continue;
    for (const api of m.deprecatedApis) {
      const key = `${api.group}/${api.version}/${api.resource}`;
      if (seen.has(key)) continue;
      const entry = byGvr.get(key) ?? { ...api, servers: [], at: m.readAt ?? 0 };
      if (!entry.servers.includes(s.name)) entry.servers.push(s.name);
      entry.at = Math.max(entry.at, m.readAt ?? 0);
      byGvr.set(key, entry);
    }
  }
  const findings: ImpactFinding[] = [];
  for (const [key, api] of byGvr) {
    const servedNowBy = servedBy.get(key) ?? [];
    const notServedNowBy = discovered.filter((s) => !servedNowBy.includes(s));
    const servedByTarget = target.gvrs.has(key);
    const warning = `deprecated${api.removedRelease ? `, removed in ${api.removedRelease}` : ''} (apiserver_requested_deprecated_apis)`;
    const impact = classify(servedNowBy.length > 0, notServedNowBy.length > 0, servedByTarget, true) ?? 'deprecated';
    const gvr = api.group ? `${api.group}/${api.version} ${api.resource}` : `${api.version} ${api.resource}`;
    const on = api.servers.map((s) => shown.get(s) ?? s).join(', ');
    const consequence =
      impact === 'removed'
        ? `not served by ${target.release} → 404 after the upgrade`
        : impact === 'skewed'
          ? `served by ${servedNowBy.map((s) => shown.get(s) ?? s).join(', ')} only → false 404s while the rollout runs`
          : `the apiserver counts it as ${warning}`;
    findings.push({
      client: { ...METRICS_CLIENT },
      group: api.group,
      version: api.version,
      resource: api.resource,
      verbs: [],
      impact,
      message: `${METRICS_CLIENT.name} requested ${gvr} from ${on}: ${consequence}`,
      evidence: { servedNowBy, notServedNowBy, servedByTarget, notFound: 0, warnings: [warning], firstAt: api.at, lastAt: api.at },
      minutes: [],
      source: 'metrics',
    });
  }
  return findings;
}
