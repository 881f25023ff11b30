// The cluster source's bad input, as the core counted it: how many pieces of the audit logs and webhook
// batches could not be used, and the first few named (where, and what kind of fault — never a piece of
// the input). Shown in the top bar and in Server health, so a silent gap in the cluster view is seen.
import type { AuditProblemsSummary } from '../../../proxy-core/contract/index.js';

export function AuditProblemsNote({
  problems,
  nameOf,
}: {
  problems: AuditProblemsSummary | undefined;
  nameOf: (server: string) => string;
}) {
  if (!problems || problems.count === 0) return null;
  const more = problems.count - problems.first.length;
  return (
    <details className="audit-problems small" role="status">
      <summary className="error-text">
        {problems.count.toLocaleString()} {problems.count === 1 ? 'problem' : 'problems'} in the audit input (the rest was read)
      </summary>
      <ul>
        {problems.first.map((p, i) => (
          <li key={i}>
            {nameOf(p.server)} · {p.source === 'audit-log' ? 'audit log' : 'audit webhook'} · {p.where}: {p.reason} — {p.detail}
          </li>
        ))}
      </ul>
      {more > 0 && <span className="muted">… and {more.toLocaleString()} more, each counted in /.peerscope/metrics</span>}
    </details>
  );
}
