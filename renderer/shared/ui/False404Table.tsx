// The false-404 table both tallies draw (Live routing's running one, Upgrade impact's over a recorded
// window): one row per client (user agent and user), answering server and the API it lacked, its
// count, and a last column of the caller's (when: the latest, or the minutes it spans).
import type { ReactNode } from 'react';
import { clientNameOf } from '../../../proxy-core/contract/index.js';
import { useServerNames } from '../server-names.js';

export interface False404Row {
  readonly userAgent: string;
  readonly user: string;
  readonly server: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly count: number;
}

export function False404Table<R extends False404Row>({
  label,
  caption,
  rows,
  shown,
  when,
  whenHeading,
  rest,
}: {
  label: string;
  caption: ReactNode;
  rows: readonly R[];
  /** How many rows are drawn; the others are summed in the footer. */
  shown: number;
  when: (row: R) => ReactNode;
  whenHeading: string;
  /** The footer's words for the rows not drawn ("other combinations"). */
  rest: string;
}) {
  const nameOf = useServerNames();
  const hidden = rows.slice(shown).reduce((n, r) => n + r.count, 0);
  return (
    <table className="simple-table false-404-table" aria-label={label}>
      <caption className="muted small">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Client</th>
          <th scope="col">Answered by</th>
          <th scope="col">API it lacked</th>
          <th scope="col" className="num">
            False 404s
          </th>
          <th scope="col">{whenHeading}</th>
        </tr>
      </thead>
      <tbody>
        {rows.slice(0, shown).map((r) => (
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
            <td className="mono muted">{when(r)}</td>
          </tr>
        ))}
      </tbody>
      {hidden > 0 && (
        <tfoot>
          <tr>
            <td colSpan={5} className="muted small">
              and {hidden.toLocaleString()} more from {rows.length - shown} {rest}
            </td>
          </tr>
        </tfoot>
      )}
    </table>
  );
}
