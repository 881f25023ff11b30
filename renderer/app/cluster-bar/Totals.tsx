// The request counters, each group saying which source it counts: through the port (all, rerouted,
// 404, 503), and — when the core follows the apiservers' audit logs — what the servers answered
// (all, false 404, real 404, 503).
import type { Overview } from '../../../proxy-core/contract/index.js';

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** `over`: the span counted when it is not the running session's (a recording opened from a file: "the whole recording"). */
export function Totals({ overview, over }: { overview: Overview; over?: string | undefined }) {
  const t = overview.totals;
  const cluster = overview.cluster;
  return (
    <>
      <dl
        className="totals"
        aria-label={over ? `Requests through the port over ${over}` : 'Requests through the port'}
        title={over ? `Counted over ${over}` : undefined}
      >
        {cluster && (
          <div className="totals-source" aria-hidden="true">
            port
          </div>
        )}
        <div>
          <dt>requests</dt>
          <dd>{sum(t).toLocaleString()}</dd>
        </div>
        <div>
          <dt>rerouted</dt>
          <dd className="t-rerouted">{t.rerouted.toLocaleString()}</dd>
        </div>
        <div>
          <dt>404</dt>
          <dd className="t-notfound">{t.notfound.toLocaleString()}</dd>
        </div>
        <div>
          <dt>503</dt>
          <dd className="t-unavailable">{t.unavailable.toLocaleString()}</dd>
        </div>
      </dl>
      {cluster && (
        <dl className="totals" aria-label="Requests the apiservers answered, from their audit logs">
          <div className="totals-source" aria-hidden="true" title="Read from the apiservers' audit logs">
            cluster
          </div>
          <div>
            <dt>requests</dt>
            <dd>{sum(cluster.totals).toLocaleString()}</dd>
          </div>
          <div>
            <dt>false 404</dt>
            <dd className="t-false-404">{cluster.totals['false-404'].toLocaleString()}</dd>
          </div>
          <div>
            <dt>404</dt>
            <dd className="t-notfound">{cluster.totals.notfound.toLocaleString()}</dd>
          </div>
          <div>
            <dt>503</dt>
            <dd className="t-unavailable">{cluster.totals.unavailable.toLocaleString()}</dd>
          </div>
        </dl>
      )}
    </>
  );
}
