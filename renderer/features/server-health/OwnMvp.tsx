// A real apiserver's own Mixed Version Proxy on its Server health card: the verdict in plain words,
// the facts it rests on, and what its own /metrics says it rerouted beside what Peerscope rerouted
// for it. Counters a server does not expose are shown as not exposed, never as zero.
import type { OwnMvp, OwnProxyMetrics } from '../../../proxy-core/contract/index.js';

const VERDICT_LABEL: Record<OwnMvp['verdict'], string> = { on: 'own MVP on', off: 'own MVP off', unknown: 'own MVP unknown' };
/** A count the server's /metrics did not give (null in the contract): never shown as 0. */
const NOT_EXPOSED = 'not exposed';
const TRISTATE: Record<'yes' | 'no' | 'unknown', string> = { yes: 'yes', no: 'no', unknown: '—' };

function countersText(m: OwnProxyMetrics): string {
  switch (m.state) {
    case 'exposed':
      return m.reroutedTotal === null ? NOT_EXPOSED : String(m.reroutedTotal);
    case 'not-exposed':
      return 'not exposed (no peer proxy)';
    case 'forbidden':
      return 'not readable (RBAC)';
    case 'unreadable':
      return 'not readable';
    default:
      return 'not read yet';
  }
}

/** All three labels empty: kube-apiserver counts a rerouted discovery request so. */
function seriesGvr(l: Record<string, string>): string {
  if (!l.group && !l.version && !l.resource) return 'discovery';
  return `${l.group || 'core'}/${l.version ?? ''}/${l.resource ?? ''}`;
}

export function OwnMvpFacts({ mvp }: { mvp: OwnMvp }) {
  const m = mvp.metrics;
  return (
    <section className={`own-mvp own-mvp-${mvp.verdict}`} aria-label="its own Mixed Version Proxy">
      <p className="own-mvp-verdict">
        <span className={`badge own-mvp-badge-${mvp.verdict}`}>{VERDICT_LABEL[mvp.verdict]}</span>{' '}
        <span className="small">{mvp.summary}</span>
      </p>
      <dl className="facts">
        <div>
          <dt>feature gate</dt>
          <dd>{TRISTATE[mvp.featureGate]}</dd>
        </div>
        <div>
          <dt>--peer-ca-file</dt>
          <dd>{TRISTATE[mvp.peerCaFile]}</dd>
        </div>
        <div>
          <dt>advertised</dt>
          <dd className="mono">{mvp.advertisedAddress ?? '—'}</dd>
        </div>
        <div>
          <dt>peer-aggregated /apis</dt>
          <dd>{TRISTATE[mvp.peerAggregatedDiscovery]}</dd>
        </div>
        <div>
          <dt>it rerouted</dt>
          <dd className="mono" title={m.error}>
            {countersText(m)}
          </dd>
        </div>
        {m.state === 'exposed' && ((m.proxyErrorsTotal ?? 0) > 0 || (m.discoverySyncErrorsTotal ?? 0) > 0) && (
          <div>
            <dt>its proxy errors</dt>
            <dd className="mono">
              {m.proxyErrorsTotal ?? NOT_EXPOSED} proxy, {m.discoverySyncErrorsTotal ?? NOT_EXPOSED} discovery sync
            </dd>
          </div>
        )}
        {mvp.peerscope && (
          <div>
            <dt>Peerscope rerouted</dt>
            <dd className="mono">
              {mvp.peerscope.reroutedAway} away from it, {mvp.peerscope.reroutedHere} to it
            </dd>
          </div>
        )}
      </dl>
      {m.state === 'exposed' && m.rerouted.length > 0 && (
        <table className="own-mvp-series small" aria-label="requests it rerouted, by GVR and code">
          <thead>
            <tr>
              <th>GVR</th>
              <th>code</th>
              <th>count</th>
            </tr>
          </thead>
          <tbody>
            {m.rerouted.map((x, i) => (
              <tr key={i}>
                <td className="mono">{seriesGvr(x.labels)}</td>
                <td className="mono">{x.labels.code}</td>
                <td className="mono">{x.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
