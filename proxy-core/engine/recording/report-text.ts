// A recording report (report.ts) as text: the short summary `peerscope recording open` prints, and
// the Markdown of `peerscope recording report` (for a ticket). Times are UTC. Servers are named as
// the live CLI names them: the host name, the identity (lease name) beside it where they differ.
import { canonicalRelease } from '../releases/release-names.js';
import { formatTable } from '../util/text-table.js';
import type { Incident, RecordingReport, ServerTimeline } from '../../contract/recording-report.js';
import { serverLabel } from '../../contract/servers.js';

/** "2026-11-27 14:32:05Z". */
export function formatTime(at: number): string {
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

export function formatMinute(at: number): string {
  return new Date(at).toISOString().slice(11, 16);
}

function releases(s: ServerTimeline): string {
  const seen = s.changes.filter((c) => c.kind === 'release');
  return seen.length === 0
    ? '(release not known)'
    : seen.map((c, i) => (i === 0 ? canonicalRelease(c.value) : `→ ${canonicalRelease(c.value)} at ${formatTime(c.at)}`)).join(' ');
}

export function outcomeLines(r: RecordingReport): string[] {
  return Object.entries(r.outcomes).map(
    ([source, counts]) =>
      `${source}: ${Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .map(([o, n]) => `${o} ${n}`)
        .join(', ')}`,
  );
}

/**
 * How the report's text names a server it knows by identity: `"cp-1" (apiserver-fa6myrjs…)` where a
 * display name was recorded that differs (serverLabel), else the identity as it is ('' stays '').
 */
export function serverNamer(r: Pick<RecordingReport, 'servers'>): (server: string) => string {
  const shown = new Map(r.servers.map((s) => [s.server, s.displayName]));
  return (server) => {
    const displayName = shown.get(server);
    return displayName === undefined || displayName === server ? server : serverLabel(server, displayName);
  };
}

/** What `recording open` prints: the span, servers and their releases, counts by outcome, false 404s by client. */
export function recordingSummary(r: RecordingReport): string {
  const info = r.recording;
  const named = serverNamer(r);
  const lines = [
    `${info.file}: recorded by peerscope ${info.peerscopeVersion} (${info.host})`,
    `span: ${formatTime(info.startedAt)} → ${formatTime(info.endedAt)} (${Math.round((info.endedAt - info.startedAt) / 1000)} s), ${info.events} events`,
    'servers:',
    ...r.servers.map((s) => `  ${named(s.server)}  ${releases(s)}`),
    'requests by outcome:',
    ...(outcomeLines(r).length ? outcomeLines(r).map((l) => `  ${l}`) : ['  none']),
  ];
  const byClient = new Map<string, number>();
  for (const f of r.false404s) byClient.set(clientOf(f), (byClient.get(clientOf(f)) ?? 0) + f.count);
  lines.push('false 404s by client (from the servers’ audit logs):');
  if (byClient.size === 0) lines.push('  none');
  else for (const [client, n] of [...byClient].sort((a, b) => b[1] - a[1])) lines.push(`  ${n}  ${client}`);
  return lines.join('\n') + '\n';
}

/** "kubectl/v1.36.0 … (as alice)": the user agent, and the user the server authenticated. */
export function clientOf(f: { client: string; user: string }): string {
  return `${f.client || '(no user agent)'}${f.user ? ` (as ${f.user})` : ''}`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return ['None.', ''];
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`), ''];
}

/** The servers' changes and the rollout's steps, one time line, oldest first. */
export function timelineRows(r: RecordingReport): { at: number; server: string; kind: string; value: string }[] {
  const named = serverNamer(r);
  return [
    ...r.servers.flatMap((s) =>
      s.changes.map((c) => ({
        at: c.at,
        server: named(s.server),
        kind: c.kind,
        value: c.kind === 'release' ? canonicalRelease(c.value) : c.kind === 'registration' && !c.value ? '(none missing)' : c.value,
      })),
    ),
    ...r.steps.map((s) => ({ at: s.at, server: named(s.subject), kind: 'step', value: s.value })),
  ].sort((a, b) => a.at - b.at);
}

/** "14:32:05Z → 14:40:00Z", or "→ still so". */
export function incidentSpan(i: Incident): [string, string] {
  return [formatTime(i.from), i.to === null ? 'still so' : formatTime(i.to)];
}

/** What the target release judgement says in a line. */
export function targetLine(r: RecordingReport): string {
  if (!r.target) return `No client was judged: ${r.targetProblem ?? 'no target release'}.`;
  const t = r.target;
  const judged = `${canonicalRelease(t.asked)}${t.note ? ` (${t.note})` : ''}`;
  const clients = new Set(r.breaking.map((b) => `${b.client.userAgent}\u0000${b.client.identity}`)).size;
  return clients === 0
    ? `No client seen in the window calls an API the target release does not serve: ${judged}.`
    : `${clients} client(s) seen in the window call APIs the target release does not serve: they get 404s after the upgrade to ${judged}.`;
}

/** The report as Markdown. */
export function reportMarkdown(r: RecordingReport): string {
  const named = serverNamer(r);
  const lines = [
    `# Rollout report: ${formatTime(r.from)} → ${formatTime(r.to)}`,
    '',
    `Recording \`${r.recording.file}\` (peerscope ${r.recording.peerscopeVersion}, ${r.recording.host}), ${formatTime(r.recording.startedAt)} → ${formatTime(r.recording.endedAt)}.`,
    '',
    '## Servers: release and state over time, and the rollout steps',
    '',
    ...table(
      ['time', 'server', 'change', 'value'],
      timelineRows(r).map((c) => [formatTime(c.at), c.server, c.kind, c.value]),
    ),
    '## Incidents',
    '',
    ...table(
      ['server', 'incident', 'from', 'to', 'requests / detail'],
      r.incidents.map((i) => [named(i.server), i.kind, ...incidentSpan(i), i.count === undefined ? (i.detail ?? '') : String(i.count)]),
    ),
    '## Clients that break at the target release',
    '',
    targetLine(r),
    '',
    ...(r.breaking.length === 0
      ? []
      : table(
          ['client', 'seen by', 'GVR', 'requests', 'finding'],
          r.breaking.map((b) => [b.client.name, b.source, b.gvr, String(b.requests), b.message]),
        )),
    '## Requests by outcome',
    '',
    ...outcomeLines(r).map((l) => `- ${l}`),
    '',
    '## False 404s per client × server × GVR per minute',
    '',
    ...table(
      ['minute (UTC)', 'client', 'server', 'GVR', 'false 404s'],
      r.false404s.map((f) => [formatMinute(f.minute), clientOf(f), named(f.server), f.gvr, String(f.count)]),
    ),
    '## What the port rerouted',
    '',
    ...table(
      ['handling server', 'answered by', 'GVR', 'requests'],
      r.rerouted.map((x) => [named(x.from), named(x.to), x.gvr, String(x.count)]),
    ),
  ];
  return lines.join('\n');
}

/** Rows for a plain-text listing of recordings (recording list). */
export function recordingListLines(
  rows: readonly { file: string; startedAt?: number; endedAt?: number; events?: number; refused?: string }[],
): string[] {
  return formatTable([
    ['FILE', 'FROM', 'TO', 'EVENTS'],
    ...rows.map((r) =>
      r.refused !== undefined
        ? [r.file, `refused: ${r.refused}`, '', '']
        : [r.file, formatTime(r.startedAt ?? 0), formatTime(r.endedAt ?? 0), String(r.events ?? 0)],
    ),
  ]);
}
