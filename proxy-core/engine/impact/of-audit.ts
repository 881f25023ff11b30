// The upgrade-impact report of the clients the apiservers' own audit events recorded (`peerscope
// report --audit-log`, `--audit-webhook-listen`): every client of the cluster, not only those that use
// the port, counted per user agent and user × GVR × verb as the port counts its own, and classified
// against the servers the events were judged by and a target release.
import type { AuditOutcome, AuditReport } from '../../contract/audit.js';
import type { ImpactReport } from '../../contract/impact.js';
import {
  judgedNames,
  readAuditLogs,
  type AuditInput,
  type AuditJudgement,
  type AuditRecord,
  type ReadAuditOptions,
} from '../audit/index.js';
import { gvrKey } from '../discovery/types.js';
import { ClientUsage } from '../telemetry/client-usage.js';
import { impactReport, type ImpactInput, type ImpactTarget } from './report.js';
import { catalogTargetNames } from './targets.js';

export interface AuditImpact {
  readonly report: ImpactReport;
  /** How the logs were read: inputs, problems, what they were judged against. */
  readonly audit: AuditReport;
}

export type TargetOf = (
  servers: readonly { readonly name: string; readonly displayName?: string; readonly gitVersion?: string }[],
) => ImpactTarget;

/**
 * The clients' usage as audited requests come (from files or a webhook), counted once each (the
 * caller deduplicates), then the report. A request the server marked deprecated carries the
 * annotation as a warning, so the report names it (impact "deprecated") with its removal release.
 */
export class AuditUsage {
  private readonly usage = new ClientUsage();
  private first = Infinity;
  private last = -Infinity;

  constructor(private readonly judgement: AuditJudgement) {}

  add(r: AuditRecord, outcome: AuditOutcome | null): void {
    // As the port counts: resource requests that were routed, not refused before routing.
    if (!r.target || outcome === 'rejected') return;
    const t = r.target;
    this.usage.recordAs(
      {
        at: r.receivedAt,
        userAgent: r.userAgent,
        group: t.group,
        version: t.version,
        resource: t.resource,
        verb: r.verb,
        status: r.code ?? 0,
      },
      r.user || 'anonymous',
      r.deprecated ? [deprecationWarning(t, r.deprecated.removedRelease)] : undefined,
    );
    this.first = Math.min(this.first, r.receivedAt);
    this.last = Math.max(this.last, r.receivedAt);
  }

  /** `target` may depend on the servers judged against (the next release above theirs). */
  report(target: TargetOf): ImpactReport {
    const now = Number.isFinite(this.last) ? this.last : Date.now();
    // Named as the screens name them: the sentences say "served by cp-2 but not cp-1", not lease names.
    const shown = judgedNames(this.judgement.description.servers);
    const servers = this.judgement.description.servers.map((s) => ({
      name: s.name,
      ...(shown.get(s.name) !== s.name ? { displayName: shown.get(s.name)! } : {}),
      ...(s.gitVersion ? { gitVersion: s.gitVersion } : {}),
      discovered: s.gvrs !== null,
    }));
    const input: ImpactInput = {
      // The window is the events' own time: from their first request to their last.
      usage: { ...this.usage.data(now), since: Number.isFinite(this.first) ? this.first : now },
      servers,
      routeTable: (this.judgement.table?.rows() ?? []).map((r) => ({ gvr: gvrKey(r.gvr), servers: [...r.servers] })),
    };
    return { ...impactReport(input, target(servers), catalogTargetNames(), now), source: 'audit-logs' };
  }
}

/**
 * The Warning header a server's own deprecation warning would be (code 299, as the usage counts
 * warnings), from its audit annotations.
 */
export function deprecationWarning(t: { group: string; version: string; resource: string }, removedRelease: string): string {
  const gv = t.group ? `${t.group}/${t.version}` : t.version;
  const text = `${gv} ${t.resource} is deprecated (audit annotation k8s.io/deprecated)${removedRelease ? `; removed in ${removedRelease} (k8s.io/removed-release)` : ''}`;
  return `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
}

export async function impactOfAuditLogs(
  inputs: readonly AuditInput[],
  options: Omit<ReadAuditOptions, 'onRequest' | 'follow'>,
  target: TargetOf,
  usage = new AuditUsage(options.judgement),
): Promise<AuditImpact> {
  const audit = await readAuditLogs(inputs, { ...options, onRequest: (r, outcome) => usage.add(r, outcome) });
  return { report: usage.report(target), audit };
}
