// What the apiservers answered, counted from their followed audit logs, in /.peerscope/metrics beside
// the port's own counters: requests per server, outcome and code, and the false 404s per server and
// GVR. A series exists once it has counted something: nothing read is no series, never a zero.
import type { Registry } from 'prom-client';
import type { AuditOutcome } from '../../contract/audit.js';
import type { ClusterOutcome } from '../../contract/cluster.js';
import { registerFamily, type Sample } from '../util/exposition.js';
import type { AuditRecord } from './event.js';

/** The outcome label of a request whose server's discovery was not known when it was read (the cluster source's outcome too). */
export const NOT_JUDGED = 'not-judged' satisfies ClusterOutcome;

/**
 * User agents and user names are the clients' own: past this many clients (user agent and user), the
 * deprecated-API series keep the clients with the most requests and count the rest as one client,
 * user_agent and user `other`.
 */
export const MAX_CLIENTS_EXPOSED = 100;
export const OTHER_CLIENT = 'other';

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

/** The deprecated-API series with the clients past MAX_CLIENTS_EXPOSED folded into one. */
function foldedClients(counted: Counted<(typeof DEPRECATED_LABELS)[number]>): Iterable<Sample<(typeof DEPRECATED_LABELS)[number]>> {
  const byClient = new Map<string, number>();
  const client = (l: { user_agent: string; user: string }) => `${l.user_agent}\u0000${l.user}`;
  for (const { labels, value } of counted.values()) byClient.set(client(labels), (byClient.get(client(labels)) ?? 0) + value);
  if (byClient.size <= MAX_CLIENTS_EXPOSED) return counted.values();
  const kept = new Set(
    [...byClient]
      .sort((a, b) => b[1] - a[1])
      .slice(0, MAX_CLIENTS_EXPOSED)
      .map(([c]) => c),
  );
  const folded: Counted<(typeof DEPRECATED_LABELS)[number]> = new Map();
  for (const { labels, value } of counted.values()) {
    const shown = kept.has(client(labels)) ? labels : { ...labels, user_agent: OTHER_CLIENT, user: OTHER_CLIENT };
    const key = Object.values<string>(shown).join('\u0000');
    const row = folded.get(key);
    if (row) row.value += value;
    else folded.set(key, { labels: shown, value });
  }
  return folded.values();
}

export class AuditCounters {
  /** Label sets are few: servers × outcomes × codes, and servers × the GVRs that got false 404s. */
  private readonly requests: Counted<(typeof REQUEST_LABELS)[number]> = new Map();
  private readonly false404s: Counted<(typeof FALSE_404_LABELS)[number]> = new Map();
  private readonly deprecated: Counted<(typeof DEPRECATED_LABELS)[number]> = new Map();

  add(record: AuditRecord, outcome: AuditOutcome | null): void {
    count(this.requests, {
      server: record.server,
      outcome: outcome ?? NOT_JUDGED,
      code: record.code === null ? 'none' : String(record.code),
    });
    const t = record.target;
    if (record.deprecated && t)
      count(this.deprecated, {
        server: record.server,
        user_agent: record.userAgent,
        user: record.user,
        group: t.group,
        version: t.version,
        resource: t.resource,
        removed_release: record.deprecated.removedRelease,
      });
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
      samples: () => this.requests.values(),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_false_404_total',
      help: 'Requests an apiserver answered 404 for a GVR it did not serve while a peer did, read from its audit log.',
      type: 'counter',
      labelNames: FALSE_404_LABELS,
      samples: () => this.false404s.values(),
    });
    registerFamily(registry, {
      name: 'peerscope_cluster_deprecated_requests_total',
      help: 'Requests for a deprecated API, per client, as the apiserver marked them in its audit log (k8s.io/deprecated; removed_release from k8s.io/removed-release, empty when no removal is planned).',
      type: 'counter',
      labelNames: DEPRECATED_LABELS,
      samples: () => foldedClients(this.deprecated),
    });
  }
}
