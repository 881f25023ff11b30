// Requests through the port: all, rerouted, 404 and 503.
import type { Overview } from '../../../proxy-core/contract/index.js';

export function Totals({ overview }: { overview: Overview }) {
  const t = overview.totals;
  const total = Object.values(t).reduce((a, b) => a + b, 0);
  return (
    <dl className="totals" aria-label="Requests through the port">
      <div>
        <dt>requests</dt>
        <dd>{total.toLocaleString()}</dd>
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
  );
}
