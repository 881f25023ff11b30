// An audit report as an operator reads it on a terminal: what was read, what it was judged against,
// the false 404s first (who got them, where, and who serves the GVR), then the counts per server,
// client and GVR. The JSON output carries everything; tables here show the busiest rows.
import { auditOutcomes, type AuditCounts, type AuditOutcome, type AuditReport } from '../../contract/audit.js';
import { formatTable } from '../util/text-table.js';
import type { AuditRecord } from './event.js';

export const OUTCOME_LABELS: Readonly<Record<AuditOutcome, string>> = {
  local: 'LOCAL',
  'false-404': 'FALSE 404',
  rerouted: 'REROUTED',
  unavailable: '503 PEER',
  notfound: 'NOT FOUND',
  'non-resource': 'NON-RESOURCE',
  rejected: 'REFUSED',
};

const CLIENT_WIDTH = 60;

export function formatGvr(gvr: { group: string; version: string; resource: string }): string {
  return `${gvr.group ? `${gvr.group}/` : ''}${gvr.version} ${gvr.resource}`;
}

export function formatAuditText(r: AuditReport, top: number): string {
  const out: string[] = [...readLines(r), '', ...judgeLines(r)];
  const judged = r.judgedAgainst.kind !== 'none';
  if (r.false404s) {
    out.push('');
    const falseTotal = r.totals.outcomes?.['false-404'] ?? 0;
    if (r.false404s.length === 0) out.push('False 404s: none (no server answered 404 for a GVR it lacked while a peer served it)');
    else {
      out.push(`False 404s: ${falseTotal} request(s) answered 404 by a server that lacked the GVR while a peer served it`);
      // Said per finding once any was judged by a release of the timeline.
      const byTimeline = r.false404s.some((f) => f.judgedBy === 'timeline');
      const rows = r.false404s
        .slice(0, top)
        .map((f) => [
          String(f.count),
          f.server,
          formatGvr(f.gvr),
          f.servedBy.join(', '),
          clientLabel(f.userAgent, f.user),
          f.last,
          ...(byTimeline ? [f.judgedBy === 'timeline' ? 'its release then' : 'today'] : []),
        ]);
      const header = ['COUNT', 'SERVER', 'GVR', 'SERVED BY', 'CLIENT', 'LAST', ...(byTimeline ? ['JUDGED BY'] : [])];
      out.push(...indent(formatTable([header, ...rows], '  ')));
      if (r.false404s.length > top) out.push(`  … and ${r.false404s.length - top} more (--top, or --output json for all)`);
    }
  }
  if (r.deprecatedCalls && r.deprecatedCalls.length > 0) {
    const calls = r.deprecatedCalls;
    out.push(
      '',
      `Deprecated APIs called (the servers' audit annotations k8s.io/deprecated, k8s.io/removed-release): ${calls.length} client × API pair(s)`,
    );
    const rows = calls
      .slice(0, top)
      .map((d) => [
        String(d.count),
        formatGvr(d.gvr),
        d.removedRelease || 'not planned',
        d.servers.join(', '),
        clientLabel(d.userAgent, d.user),
        d.last,
      ]);
    out.push(...indent(formatTable([['COUNT', 'GVR', 'REMOVED IN', 'SERVERS', 'CLIENT', 'LAST'], ...rows], '  ')));
    if (calls.length > top) out.push(`  … and ${calls.length - top} more (--top, or --output json for all)`);
  }
  const showUnjudged = r.totals.unjudged > 0 && r.totals.requests > r.totals.unjudged;
  const table = <T extends AuditCounts>(title: string, heads: string[], rows: readonly T[], keys: (row: T) => string[]) => {
    out.push('', rows.length > top ? `${title} (the ${top} busiest of ${rows.length})` : title);
    const header = [
      ...heads,
      'REQUESTS',
      ...(judged ? auditOutcomes.map((o) => OUTCOME_LABELS[o]) : []),
      ...(showUnjudged ? ['NOT JUDGED'] : []),
      'CODES',
    ];
    const body = rows
      .slice(0, top)
      .map((row) => [
        ...keys(row),
        String(row.requests),
        ...(judged ? auditOutcomes.map((o) => (row.outcomes ? String(row.outcomes[o]) : '-')) : []),
        ...(showUnjudged ? [String(row.unjudged)] : []),
        codesLabel(row.codes),
      ]);
    out.push(...indent(formatTable([header, ...body], '  ')));
  };
  table('Per server', ['SERVER'], r.perServer, (s) => [s.server]);
  table('Per client', ['CLIENT'], r.perClient, (c) => [clientLabel(c.userAgent, c.user)]);
  table('Per GVR', ['GVR'], r.perGvr, (g) => [formatGvr(g.gvr)]);
  if (r.problemCount > 0) {
    out.push('', `Problems: ${r.problemCount} line(s) or file(s) could not be used; the rest was read`);
    out.push(...indent(r.problems));
    if (r.problemCount > r.problems.length) out.push(`  … and ${r.problemCount - r.problems.length} more`);
  }
  return out.join('\n') + '\n';
}

/** One line per request as it is counted while following: the ones an operator watches for. */
export function formatFinding(record: AuditRecord, outcome: AuditOutcome | null): string | undefined {
  if (outcome !== 'false-404' && outcome !== 'unavailable' && outcome !== 'notfound') return undefined;
  const target = record.target ? formatGvr(record.target) : record.path;
  return `${new Date(record.receivedAt).toISOString()}  ${OUTCOME_LABELS[outcome]}  ${record.server}  ${record.verb} ${target}  ${record.code ?? '-'}  ${clientLabel(record.userAgent, record.user)}`;
}

function readLines(r: AuditReport): string[] {
  const finals = (r.stages.ResponseComplete ?? 0) + (r.stages.Panic ?? 0);
  const earlier = Object.values(r.stages).reduce((a, b) => a + b, 0) - finals;
  const out = [
    `${r.complete ? 'Read' : 'Stopped (Ctrl-C); read until then:'} ${r.inputs.length} audit log(s): ${r.totals.requests} request(s) counted once each` +
      ` (${earlier} earlier-stage event(s) not counted, ${r.duplicates} duplicate(s) dropped), ${r.problemCount} problem(s)`,
  ];
  out.push(
    ...indent(
      formatTable(
        r.inputs.map((i) => [
          i.server,
          i.files.length > 1 ? `${i.file} (+${i.files.length - 1} rotated)` : i.file,
          `${i.lines} lines`,
          `${i.events} events`,
          i.error ?? '',
        ]),
      ),
    ),
  );
  return out;
}

function judgeLines(r: AuditReport): string[] {
  const j = r.judgedAgainst;
  if (j.kind === 'none')
    return ['Not judged: no discovery to judge by (give --kubeconfig, --server or --snapshot); requests and codes only, no outcomes.'];
  const source =
    j.kind === 'snapshot'
      ? `the routing snapshot ${j.from ?? ''} taken ${j.at ?? '?'}`
      : `the servers' discovery read ${j.kind === 'kubeconfig' ? `from kubeconfig context "${j.from ?? ''}" ` : ''}at ${j.at ?? '?'}`;
  const out = [`Judged against ${source} (every event by that discovery, unless the timeline says its server ran another release then):`];
  out.push(
    ...indent(
      formatTable(
        j.servers.map((s) => [
          s.name,
          s.gitVersion ?? '?',
          s.gvrs === null ? `discovery not read${s.error ? `: ${s.error}` : ''}` : `${s.gvrs} GVRs`,
        ]),
      ),
    ),
  );
  if (r.judgedBy && r.judgedBy.timeline > 0)
    out.push(
      `  ${r.judgedBy.timeline} request(s) came while their server ran another release (its own requests in the log name it): judged against that release (the catalog's) instead; ${r.judgedBy.today} by today's discovery`,
    );
  const known = new Set(j.servers.filter((s) => s.gvrs !== null).map((s) => s.name));
  const unknown = r.inputs.filter((i) => !known.has(i.server)).map((i) => i.server);
  if (unknown.length > 0) out.push(`  not judged (no discovery of that server): ${[...new Set(unknown)].join(', ')}`);
  return out;
}

function clientLabel(userAgent: string, user: string): string {
  const agent = userAgent.length > CLIENT_WIDTH ? `${userAgent.slice(0, CLIENT_WIDTH - 1)}…` : userAgent || '(no user agent)';
  return `${agent} (${user || 'no user'})`;
}

function codesLabel(codes: Readonly<Record<string, number>>): string {
  return Object.entries(codes)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => `  ${l}`);
}
