// The words the upgrade-impact screen uses: each impact kind and each source of requests, with the
// help a hover shows, and how a finding's client is keyed.
import type { ImpactFinding, ImpactFindingSource, ImpactKind, ImpactReport } from '../../../proxy-core/contract/index.js';

export const IMPACT_LABELS: Record<ImpactKind, { label: string; help: string }> = {
  removed: { label: 'removed', help: 'served now, not by the target release: 404 after the upgrade' },
  superseded: {
    label: 'superseded',
    help: 'a newer version serves the same resource: the client will have to move to it before its version is removed',
  },
  skewed: {
    label: 'skewed',
    help: 'served by some current servers only: false 404s while the rollout runs, unless a mixed version proxy reroutes',
  },
  deprecated: { label: 'deprecated', help: 'an apiserver answered with a Warning: 299 header' },
  'target-only': { label: 'target only', help: 'only the target release serves it: 404 today, answered after the upgrade' },
};

/** Where a finding's requests were seen, in the words the screen uses. */
export const SOURCE_LABELS: Record<ImpactFindingSource, { label: string; help: string }> = {
  port: { label: 'port', help: "requests through Peerscope's port" },
  'cluster-audit': {
    label: 'cluster audit',
    help: 'requests the apiservers recorded in their own audit logs: every client of the cluster',
  },
  metrics: {
    label: 'metrics',
    help: "an apiserver's /metrics (apiserver_requested_deprecated_apis): someone requested it, the client is not named",
  },
};

/** A finding's source; a report of an earlier version names only the report's. */
export function sourceOf(f: ImpactFinding, report: ImpactReport): ImpactFindingSource {
  return f.source ?? (report.source === 'audit-logs' ? 'cluster-audit' : 'port');
}

/** "through the port and in the cluster's audit logs": what the report read. */
export function describeSources(report: ImpactReport): string {
  const sources = report.sources ?? [report.source === 'audit-logs' ? 'cluster-audit' : 'port'];
  const words: Record<ImpactFindingSource, string> = {
    port: 'through the port',
    'cluster-audit': "in the cluster's audit logs",
    metrics: "in the servers' /metrics",
  };
  const parts = sources.map((s) => words[s]);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

/** A finding's client as the filter lists it: its name and identity. */
export const clientKey = (f: ImpactFinding) => `${f.client.name} · ${f.client.identity}`;
