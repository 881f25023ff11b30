// Who is getting false 404s: every false 404 the cluster source brought since the page opened, per
// client (user agent and user), the server that answered it and the GVR that server lacked — the
// rollout question the stream's rows scroll past.
import { useSyncExternalStore } from 'react';
import { clientNameOf } from '../../../proxy-core/contract/index.js';
import { useServerNames } from '../../shared/server-names.js';
import { formatTime } from '../../shared/ui/format.js';
import type { ClusterFeed } from './cluster-feed.js';

/** Rows shown; the rest are summed in one line. */
const MAX_SHOWN = 12;

export function False404sByClient({ feed }: { feed: ClusterFeed }) {
  const tally = useSyncExternalStore(feed.subscribe, feed.getFalse404s);
  const nameOf = useServerNames();
  const total = tally.rows.reduce((n, r) => n + r.count, 0) + tally.unattributed;
  const shown = tally.rows.slice(0, MAX_SHOWN);
  const rest = tally.rows.slice(MAX_SHOWN).reduce((n, r) => n + r.count, 0);
  return (
    <section className="card false-404s" aria-labelledby="false-404s-title">
      <h3 id="false-404s-title">
        False 404s by client <span className="muted small">since {formatTime(tally.since)}</span>
      </h3>
      {total === 0 ? (
        <p className="muted small">None in the apiservers&apos; audit logs since then: no server answered 404 for a GVR a peer serves.</p>
      ) : (
        <table className="simple-table false-404-table" aria-label="False 404s by client">
          <caption className="muted small">
            {total.toLocaleString()} false {total === 1 ? '404' : '404s'}
            {tally.unattributed > 0
              ? `, ${tally.unattributed.toLocaleString()} of them not named by client (a burst the core trimmed, or too many combinations)`
              : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Answered by</th>
              <th scope="col">API it lacked</th>
              <th scope="col" className="num">
                False 404s
              </th>
              <th scope="col">Latest</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr
                key={`${r.userAgent}\u0000${r.user}\u0000${r.server}\u0000${r.group}/${r.version}/${r.resource}`}
                data-client={clientNameOf(r.userAgent)}
              >
                <th scope="row" title={`user agent: ${r.userAgent}`}>
                  {clientNameOf(r.userAgent)}
                  <div className="muted small">{r.user || 'anonymous'}</div>
                </th>
                <td title={r.server}>{nameOf(r.server)}</td>
                <td>
                  <code>
                    {r.group ? `${r.group}/` : ''}
                    {r.version} {r.resource}
                  </code>
                </td>
                <td className="num">{r.count.toLocaleString()}</td>
                <td className="mono muted">{formatTime(r.last)}</td>
              </tr>
            ))}
          </tbody>
          {rest > 0 && (
            <tfoot>
              <tr>
                <td colSpan={5} className="muted small">
                  and {rest.toLocaleString()} more from {tally.rows.length - MAX_SHOWN} other client, server and API combinations
                </td>
              </tr>
            </tfoot>
          )}
        </table>
      )}
    </section>
  );
}
