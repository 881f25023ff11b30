// The upgrade-impact report for people: plain text for a terminal, Markdown for a change ticket.
import { impactKinds, type ImpactFinding, type ImpactFindingSource, type ImpactKind, type ImpactReport } from '../../contract/impact.js';
import { shownName } from '../../contract/servers.js';
import { changeOf, type Change } from './direction.js';
import { canonicalRelease } from '../releases/release-names.js';

function headings(change: Change): Record<ImpactKind, string> {
  return {
    removed: `Removed by the ${change}: 404 after it`,
    superseded: 'A newer version serves the same resource: will have to move',
    skewed: 'Served by some current servers only: false 404s during the rollout',
    deprecated: 'Deprecated: the apiservers warn',
    'target-only': `Served only by the target: 404 today, answered after the ${change}`,
  };
}

function changeOfReport(r: ImpactReport): Change {
  return changeOf(
    r.current.map((s) => s.gitVersion),
    r.target.gitVersion,
  );
}

/** Said first when no request was counted: an empty report judges nothing, it is not a pass. */
export function nothingSeen(r: ImpactReport): string | undefined {
  return r.clients === 0 && r.findings.length === 0
    ? 'Nothing seen: no client request was counted, so nothing was judged (this is not a pass; send traffic through the port or read the audit logs of a busier window).'
    : undefined;
}

function header(r: ImpactReport): string {
  const releases = [...new Set(r.current.map((s) => (s.gitVersion ? canonicalRelease(s.gitVersion) : '?')))].join(', ');
  const when = r.window.minutes >= 1 ? `${r.window.minutes.toFixed(1)} min` : `${Math.round(r.window.minutes * 60)} s`;
  const clients = `${r.clients} ${r.clients === 1 ? 'client' : 'clients'}`;
  const source =
    r.source === 'audit-logs'
      ? `from the requests of ${clients} in the apiservers' audit logs, ${new Date(r.window.since).toISOString()} to ${new Date(r.window.until).toISOString()} (rates over the last ${when})`
      : `from the requests of ${clients} over the last ${when}`;
  const asked = r.target.note ? ` (${r.target.note})` : '';
  const title = changeOfReport(r) === 'downgrade' ? 'Downgrade impact' : 'Upgrade impact';
  return `${title}: ${releases || 'no servers'} (${r.current.map(shownName).join(', ')}) → ${r.target.release}${asked}, ${source}`;
}

function noFindings(r: ImpactReport): string {
  return `No findings: every GVR the clients used is served by every current server and by ${r.target.release}, and no apiserver sent a deprecation warning.`;
}

function untracked(r: ImpactReport): string[] {
  return r.untracked > 0 ? [`${r.untracked} requests were not counted: the usage row limit was reached.`] : [];
}

export function formatImpactText(r: ImpactReport): string {
  const empty = nothingSeen(r);
  const lines = [...(empty ? [empty] : []), header(r), ''];
  if (r.findings.length === 0 && !empty) lines.push(noFindings(r));
  const HEADINGS = headings(changeOfReport(r));
  for (const kind of impactKinds) {
    const of = r.findings.filter((f) => f.impact === kind);
    if (of.length === 0) continue;
    lines.push(`${HEADINGS[kind]} (${of.length})`);
    for (const f of of) lines.push(`  ${f.message}`, `      ${detail(f, r)}`);
    lines.push('');
  }
  lines.push(...untracked(r));
  return lines.join('\n').trimEnd() + '\n';
}

export function formatImpactMarkdown(r: ImpactReport): string {
  const empty = nothingSeen(r);
  const lines = [`## ${header(r)}`, '', ...(empty ? [`**${empty}**`, ''] : [])];
  if (r.findings.length === 0 && !empty) lines.push(noFindings(r), '');
  const HEADINGS = headings(changeOfReport(r));
  for (const kind of impactKinds) {
    const of = r.findings.filter((f) => f.impact === kind);
    if (of.length === 0) continue;
    lines.push(
      `### ${HEADINGS[kind]} (${of.length})`,
      '',
      '| Client | Identity | API | Requests | What happens |',
      '|---|---|---|---|---|',
    );
    for (const f of of) {
      const api = `${f.group ? `${f.group}/` : ''}${f.version} ${f.resource}`;
      const verbs = f.verbs.map((v) => `${v.verb} ${v.count}`).join(', ');
      lines.push(
        `| ${cell(f.client.name)} | \`${cell(f.client.identity)}\` | \`${cell(api)}\` | ${verbs} | ${cell(f.message.slice(f.message.indexOf(': ') + 2))} |`,
      );
    }
    lines.push('');
  }
  lines.push(...untracked(r));
  return lines.join('\n').trimEnd() + '\n';
}

/** Where a finding's requests were seen, when the report has more than one place (a request through the port is in its server's audit log too). */
const SEEN: Record<ImpactFindingSource, string> = {
  port: 'through the port',
  'cluster-audit': "in the servers' audit logs",
  metrics: "in the servers' /metrics",
};

function detail(f: ImpactFinding, r: ImpactReport): string {
  const verbs = f.verbs.map((v) => `${v.verb} ×${v.count}`).join(', ');
  const seen = f.source && (r.sources?.length ?? 0) > 1 ? ` · seen ${SEEN[f.source]}` : '';
  return `identity ${f.client.identity} · ${verbs} · user agent "${f.client.userAgent}"${seen}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
