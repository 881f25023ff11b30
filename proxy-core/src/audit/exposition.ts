// What the apiservers answered, counted from their followed audit logs, in /.peerscope/metrics beside
// the port's own counters: requests per server, outcome and code, and the false 404s per server and
// GVR. A series exists once it has counted something: nothing read is no series, never a zero.
import type { AuditOutcome } from '../../contract/audit.js';
import type { ClusterOutcome } from '../../contract/cluster.js';
import { labelSet } from '../util/exposition.js';
import type { AuditRecord } from './event.js';

/** The outcome label of a request whose server's discovery was not known when it was read (the cluster source's outcome too). */
export const NOT_JUDGED = 'not-judged' satisfies ClusterOutcome;

/**
 * Clients (user agent × user) with a deprecated-requests series of their own. Both labels are whatever a
 * client sends, so they are bounded: the first MAX_CLIENT_SERIES distinct clients keep their own series,
 * every later one is counted in one series labelled user_agent="other", user="other". First come rather
 * than re-ranked by volume, so a counter never moves between series (it never goes down); the clients
 * of a cluster's deprecated calls are mostly its controllers, there from the start. The full per-client
 * view is in the reports and the UI.
 */
export const MAX_CLIENT_SERIES = 20;
export const OTHER_CLIENTS = 'other';

export class AuditCounters {
  /** Label set → count. Label sets are few: servers × outcomes × codes, and servers × the GVRs that got false 404s. */
  private readonly requests = new Map<string, number>();
  private readonly false404s = new Map<string, number>();
  private readonly deprecated = new Map<string, number>();
  private readonly clients = new Set<string>();

  add(record: AuditRecord, outcome: AuditOutcome | null): void {
    const key = labelSet({
      server: record.server,
      outcome: outcome ?? NOT_JUDGED,
      code: record.code === null ? 'none' : String(record.code),
    });
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const t = record.target;
    if (record.deprecated && t) {
      const client = `${record.userAgent}\u0000${record.user}`;
      if (!this.clients.has(client) && this.clients.size < MAX_CLIENT_SERIES) this.clients.add(client);
      const own = this.clients.has(client);
      const labels = labelSet({
        server: record.server,
        user_agent: own ? record.userAgent : OTHER_CLIENTS,
        user: own ? record.user : OTHER_CLIENTS,
        group: t.group,
        version: t.version,
        resource: t.resource,
        removed_release: record.deprecated.removedRelease,
      });
      this.deprecated.set(labels, (this.deprecated.get(labels) ?? 0) + 1);
    }
    if (outcome !== 'false-404' || !t) return;
    const gvr = labelSet({ server: record.server, group: t.group, version: t.version, resource: t.resource });
    this.false404s.set(gvr, (this.false404s.get(gvr) ?? 0) + 1);
  }

  exposition(): string {
    return (
      [
        "# HELP peerscope_cluster_requests_total Requests each apiserver answered, read from its audit log, by outcome (judged against the route table when read; not-judged before that server's discovery was) and response code.",
        '# TYPE peerscope_cluster_requests_total counter',
        ...[...this.requests].map(([labels, n]) => `peerscope_cluster_requests_total{${labels}} ${n}`),
        '# HELP peerscope_cluster_false_404_total Requests an apiserver answered 404 for a GVR it did not serve while a peer did, read from its audit log.',
        '# TYPE peerscope_cluster_false_404_total counter',
        ...[...this.false404s].map(([labels, n]) => `peerscope_cluster_false_404_total{${labels}} ${n}`),
        `# HELP peerscope_cluster_deprecated_requests_total Requests for a deprecated API, per client, as the apiserver marked them in its audit log (k8s.io/deprecated; removed_release from k8s.io/removed-release, empty when no removal is planned); the first ${MAX_CLIENT_SERIES} clients have their own series, the rest user_agent="${OTHER_CLIENTS}".`,
        '# TYPE peerscope_cluster_deprecated_requests_total counter',
        ...[...this.deprecated].map(([labels, n]) => `peerscope_cluster_deprecated_requests_total{${labels}} ${n}`),
      ].join('\n') + '\n'
    );
  }
}
