// What the apiservers answered, counted from their followed audit logs, in /.peerscope/metrics beside
// the port's own counters: requests per server, outcome and code, and the false 404s per server and
// GVR. A series exists once it has counted something: nothing read is no series, never a zero.
import type { Registry } from 'prom-client';
import type { AuditOutcome } from '../../contract/audit.js';
import type { ClusterOutcome } from '../../contract/cluster.js';
import { registerFamily } from '../util/exposition.js';
import type { AuditRecord } from './event.js';

/** The outcome label of a request whose server's discovery was not known when it was read (the cluster source's outcome too). */
export const NOT_JUDGED = 'not-judged' satisfies ClusterOutcome;

/**
 * Clients (user agent × user) with a deprecated-requests series of their own. Both labels are whatever a
 * client sends, so they are bounded: the first MAX_CLIENT_SERIES distinct clients keep their own series,
 * every later one is counted in one series labelled user_agent="other", user="other". First come rather
 * than re-ranked by volume, so a counter never moves between series (a counter never goes down); the
 * clients of a cluster's deprecated calls are mostly its controllers, there from the start. The full
 * per-client view is in the reports and the UI.
 */
export const MAX_CLIENT_SERIES = 20;
export const OTHER_CLIENTS = 'other';

const REQUEST_LABELS = ['server', 'outcome', 'code'] as const;
const FALSE_404_LABELS = ['server', 'group', 'version', 'resource'] as const;
const DEPRECATED_LABELS = ['server', 'user_agent', 'user', 'group', 'version', 'resource', 'removed_release'] as const;
type Counted<L extends string> = Map<string, { labels: Record<L, string>; value: number }>;

function count<L extends string>(counted: Counted<L>, labels: Record<L, string>): void {
  const key = Object.values<string>(labels).join('\u0000');
  const row = counted.get(key);
  if (row) row.value++;
  else counted.set(key, { labels, value: 1 });
}

export class AuditCounters {
  /** Label sets are few: servers × outcomes × codes, and servers × the GVRs that got false 404s. */
  private readonly requests: Counted<(typeof REQUEST_LABELS)[number]> = new Map();
  private readonly false404s: Counted<(typeof FALSE_404_LABELS)[number]> = new Map();
  private readonly deprecated: Counted<(typeof DEPRECATED_LABELS)[number]> = new Map();
  private readonly clients = new Set<string>();

  add(record: AuditRecord, outcome: AuditOutcome | null): void {
    count(this.requests, {
      server: record.server,
      outcome: outcome ?? NOT_JUDGED,
      code: record.code === null ? 'none' : String(record.code),
    });
    const t = record.target;
    if (record.deprecated && t) {
      const client = `${record.userAgent}\u0000${record.user}`;
      if (!this.clients.has(client) && this.clients.size < MAX_CLIENT_SERIES) this.clients.add(client);
      const own = this.clients.has(client);
      count(this.deprecated, {
        server: record.server,
        user_agent: own ? record.userAgent : OTHER_CLIENTS,
        user: own ? record.user : OTHER_CLIENTS,
        group: t.group,
        version: t.version,
        resource: t.resource,
        removed_release: record.deprecated.removedRelease,
      });
    }
    if (outcome !== 'false-404' || !t) return;
    count(this.false404s, { server: record.server, group: t.group, version: t.version, resource: t.resource });
  }

  /** Adds the families to the port's registry; each scrape reads the counts as they are then. */
  register(registry: Registry): void {
    registerFamily(registry, {
      name: 'peerscope_cluster_requests_total',
      help: "Requests each apiserver answered, read from its audit log, by outcome (judged against the route table when read; not-judged before that server's discovery was) and response code.",
      type: 'counter',
      labelNames: REQUEST_LABELS,
      serverLabels: ['server'],
      samples: () => this.requests.values(),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_false_404_total',
      help: 'Requests an apiserver answered 404 for a GVR it did not serve while a peer did, read from its audit log.',
      type: 'counter',
      labelNames: FALSE_404_LABELS,
      serverLabels: ['server'],
      samples: () => this.false404s.values(),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_deprecated_requests_total',
      help: `Requests for a deprecated API, per client, as the apiserver marked them in its audit log (k8s.io/deprecated; removed_release from k8s.io/removed-release, empty when no removal is planned); the first ${MAX_CLIENT_SERIES} clients have their own series, the rest user_agent="${OTHER_CLIENTS}".`,
      type: 'counter',
      labelNames: DEPRECATED_LABELS,
      serverLabels: ['server'],
      samples: () => this.deprecated.values(),
    });
  }
}
