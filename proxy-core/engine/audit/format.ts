// An audit report as an operator reads it on a terminal: what was read, what it was judged against,
// the false 404s first (who got them, where, and who serves the GVR), then the counts per server,
// client and GVR. The JSON output carries everything; tables here show the busiest rows.
import {
  auditOutcomes,
  undeterminedReasons,
  type AuditCounts,
  type AuditOutcome,
  type AuditReport,
  type UndeterminedReason,
} from '../../contract/audit.js';
import { formatTable } from '../util/text-table.js';
import { ServerNames } from '../cluster/server-names.js';
import { clientLabel, clientLabels } from './client-label.js';
import type { AuditRecord } from './event.js';

export const OUTCOME_LABELS: Readonly<Record<AuditOutcome, string>> = {
  local: 'LOCAL',
  'false-404': 'FALSE 404',
  rerouted: 'REROUTED',
  unavailable: '503 PEER',
  notfound: 'NOT FOUND',
  'non-resource': 'NON-RESOURCE',
  rejected: 'REFUSED',
  undetermined: 'UNDETERMINED',
};

export function formatGvr(gvr: { group: string; version: string; resource: string }): string {
  return `${gvr.group ? `${gvr.group}/` : ''}${gvr.version} ${gvr.resource}`;
}

const REASON_WORDS: Readonly<Record<UndeterminedReason, string>> = {
  'server-unknown': 'from a server none of the judged ones',
  'discovery-unread': "while a server's discovery was unknown",
  'discovery-stale': 'answered for what no known discovery lists',
};

/** The first line when not every request was judged: how many and why. */
function notJudgedLine(r: AuditReport): string | undefined {
  if (r.totals.unjudged === 0) return undefined;
  if (r.judgedAgainst.kind === 'none')
    return `Not judged: ${r.totals.unjudged} of ${r.totals.requests} request(s) — no discovery to judge by (give --kubeconfig, --server or --snapshot); requests and codes only.`;
  const why = undeterminedReasons
    .filter((reason) => (r.undetermined?.[reason] ?? 0) > 0)
    .map((reason) => `${r.undetermined?.[reason]} ${REASON_WORDS[reason]}`);
  return `Not judged: ${r.totals.unjudged} of ${r.totals.requests} request(s) are undetermined (${why.join(', ') || 'what was known did not decide them'}); they are counted as neither local, not found nor false 404.`;
}

function false404Summary(r: AuditReport, falseTotal: number): string {
  const open = r.totals.unjudged;
  if (r.false404s === null) return 'False 404s: not known — no request could be judged (see the first line)';
  if (r.false404s.length === 0)
    return open === 0
      ? 'False 404s: none (no server answered 404 for a GVR it lacked while a peer served it)'
      : `False 404s: none among the ${r.totals.requests - open} judged request(s); the ${open} undetermined could hold some`;
  const more = open > 0 ? `; ${open} more request(s) undetermined` : '';
  return `False 404s: ${falseTotal} request(s) answered 404 by a server that lacked the GVR while a peer served it${more}`;
}

export function formatAuditText(r: AuditReport, top: number): string {
  const names = new ServerNames(r.judgedAgainst.servers);
  const shown = (server: string) => names.shownName(server);
  const first = notJudgedLine(r);
  const out: string[] = [...(first ? [first, ''] : []), ...readLines(r, shown), '', ...judgeLines(r, names)];
  const judged = r.judgedAgainst.kind !== 'none';
  if (judged) {
    out.push('');
    const falseTotal = r.totals.outcomes?.['false-404'] ?? 0;
    out.push(false404Summary(r, falseTotal));
    if (r.false404s && r.false404s.length > 0) {
      // Said per finding once any was judged by a release of the timeline.
      const byTimeline = r.false404s.some((f) => f.judgedBy === 'timeline');
      const listed = r.false404s.slice(0, top);
      const clients = clientLabels(listed);
      const rows = listed.map((f, i) => [
        String(f.count),
        shown(f.server),
        formatGvr(f.gvr),
        f.servedBy.map(shown).join(', '),
        clients[i]!,
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
    const listed = calls.slice(0, top);
    const clients = clientLabels(listed);
    const rows = listed.map((d, i) => [
      String(d.count),
      formatGvr(d.gvr),
      d.removedRelease || 'not planned',
      d.servers.map(shown).join(', '),
      clients[i]!,
      d.last,
    ]);
    out.push(...indent(formatTable([['COUNT', 'GVR', 'REMOVED IN', 'SERVERS', 'CLIENT', 'LAST'], ...rows], '  ')));
    if (calls.length > top) out.push(`  … and ${calls.length - top} more (--top, or --output json for all)`);
  }
  const table = <T extends AuditCounts>(title: string, heads: string[], rows: readonly T[], keys: (listed: readonly T[]) => string[][]) => {
    out.push('', rows.length > top ? `${title} (the ${top} busiest of ${rows.length})` : title);
    const header = [...heads, 'REQUESTS', ...(judged ? auditOutcomes.map((o) => OUTCOME_LABELS[o]) : []), 'CODES'];
    const listed = rows.slice(0, top);
    const cells = keys(listed);
    const body = listed.map((row, i) => [
      ...cells[i]!,
      String(row.requests),
      ...(judged ? auditOutcomes.map((o) => (row.outcomes ? String(row.outcomes[o]) : '-')) : []),
      codesLabel(row.codes),
    ]);
    out.push(...indent(formatTable([header, ...body], '  ')));
  };
  table('Per server', ['SERVER'], r.perServer, (listed) => listed.map((s) => [shown(s.server)]));
  // Two clients of one program differ at the end of their user agents: never printed alike.
  table('Per client', ['CLIENT'], r.perClient, (listed) => clientLabels(listed).map((c) => [c]));
  table('Per GVR', ['GVR'], r.perGvr, (listed) => listed.map((g) => [formatGvr(g.gvr)]));
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

function readLines(r: AuditReport, shown: (server: string) => string): string[] {
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
          shown(i.server),
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

function judgeLines(r: AuditReport, names: ServerNames): string[] {
  const j = r.judgedAgainst;
  if (j.kind === 'none')
    return ['Not judged: no discovery to judge by (give --kubeconfig, --server or --snapshot); requests and codes only, no outcomes.'];
  const shown = (server: string) => names.shownName(server);
  const source =
    j.kind === 'snapshot'
      ? `the routing snapshot ${j.from ?? ''} taken ${j.at ?? '?'}`
      : `the servers' discovery read ${j.kind === 'kubeconfig' ? `from kubeconfig context "${j.from ?? ''}" ` : ''}at ${j.at ?? '?'}`;
  const out = [`Judged against ${source} (every event by that discovery, unless the timeline says its server ran another release then):`];
  out.push(
    ...indent(
      formatTable(
        j.servers.map((s) => [
          names.labelled(s.name),
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
  for (const s of r.standIns ?? [])
    out.push(
      `  ${shown(s.server)}: its discovery unread now, judged from last known discovery — the catalog's ${s.release} (${s.from === 'log' ? 'the release its own requests in the log named' : 'the release its /version gave now'}), for ${s.requests} request(s)`,
    );
  const standing = new Set((r.standIns ?? []).map((s) => s.server));
  const unknown = j.servers.filter((s) => s.gvrs === null && !standing.has(s.name)).map((s) => shown(s.name));
  if (unknown.length > 0) out.push(`  nothing known of ${unknown.join(', ')}: what its discovery would decide is undetermined`);
  return out;
}

function codesLabel(codes: Readonly<Record<string, number>>): string {
  return Object.entries(codes)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => `  ${l}`);
}
