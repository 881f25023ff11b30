// Each apiserver's own Mixed Version Proxy in /.peerscope/metrics, beside Peerscope's own routing
// counters: its verdict, whether its peer-proxy counters could be read, and those counters as its
// /metrics gave them, labelled with the server. A server whose counters are not exposed (no peer
// proxy, RBAC, unreadable) has a state series saying so and no counter series: never a zero.
import type { ServerStatus } from '../../contract/servers.js';
import type { OwnProxySeries } from '../../contract/own-mvp.js';
import { labelSet } from '../util/exposition.js';

function labels(server: string, extra: Record<string, string>): string {
  return labelSet({ server, ...extra });
}

export function ownMvpExposition(statuses: readonly ServerStatus[]): string {
  const withMvp = statuses.filter((s) => s.ownMvp);
  if (withMvp.length === 0) return '';
  const lines = [
    "# HELP peerscope_apiserver_own_mvp Each apiserver's own Mixed Version Proxy as Peerscope tells it from outside (1 on the verdict it has: on, off, unknown).",
    '# TYPE peerscope_apiserver_own_mvp gauge',
    ...withMvp.map((s) => `peerscope_apiserver_own_mvp{${labels(s.name, { verdict: s.ownMvp!.verdict })}} 1`),
    "# HELP peerscope_apiserver_own_proxy_metrics Whether each apiserver's own peer-proxy counters were read from its /metrics (1 on the state: exposed, not-exposed, forbidden, unreadable, not-read).",
    '# TYPE peerscope_apiserver_own_proxy_metrics gauge',
    ...withMvp.map((s) => `peerscope_apiserver_own_proxy_metrics{${labels(s.name, { state: s.ownMvp!.metrics.state })}} 1`),
  ];
  const family = (name: string, help: string, pick: (s: ServerStatus) => OwnProxySeries[]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const s of withMvp) {
      if (s.ownMvp!.metrics.state !== 'exposed') continue;
      for (const x of pick(s)) lines.push(`${name}{${labels(s.name, x.labels)}} ${x.value}`);
    }
  };
  family(
    'peerscope_apiserver_rerouted_request_total',
    "apiserver_rerouted_request_total as each apiserver's own /metrics gives it: requests its own peer proxy sent to a peer.",
    (s) => s.ownMvp!.metrics.rerouted,
  );
  family(
    'peerscope_apiserver_peer_proxy_errors_total',
    "apiserver_peer_proxy_errors_total as each apiserver's own /metrics gives it.",
    (s) => s.ownMvp!.metrics.proxyErrors,
  );
  family(
    'peerscope_apiserver_peer_discovery_sync_errors_total',
    "apiserver_peer_discovery_sync_errors_total as each apiserver's own /metrics gives it.",
    (s) => s.ownMvp!.metrics.discoverySyncErrors,
  );
  return lines.join('\n') + '\n';
}
