// Requests by GVR and outcome at capture time, busiest first (the ten busiest unless asked for all).
import { useState } from 'react';
import type { RoutingSnapshot } from '../../../proxy-core/contract/index.js';
import { gvrKeyLabel, outcomeStyle } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import { COUNTER_COLUMNS, COUNTERS_SHOWN, counterRows } from './counters.js';

export function CountersTable({ snapshot }: { snapshot: RoutingSnapshot }) {
  const [all, setAll] = useState(false);
  const rows = counterRows(snapshot);
  if (rows.length === 0) return <Empty>No request had gone through the port when this snapshot was taken.</Empty>;
  const shown = all ? rows : rows.slice(0, COUNTERS_SHOWN);
  return (
    <div className="table-scroll">
      <table className="simple-table counters">
        <caption>Requests by GVR and outcome at capture time</caption>
        <thead>
          <tr>
            <th scope="col">GVR</th>
            <th scope="col" className="num">
              requests
            </th>
            {COUNTER_COLUMNS.map((o) => (
              <th scope="col" key={o} className="num">
                {outcomeStyle[o].label}
              </th>
            ))}
            <th scope="col" className="num">
              other
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.gvr}>
              <th scope="row" className="mono">
                {r.gvr ? gvrKeyLabel(r.gvr) : '(discovery and non-resource paths)'}
              </th>
              <td className="num mono">{r.total.toLocaleString()}</td>
              {COUNTER_COLUMNS.map((o) => (
                <td key={o} className={`num mono${r[o] && o !== 'local' ? ` t-${o}` : ''}`}>
                  {r[o] ? r[o].toLocaleString() : '·'}
                </td>
              ))}
              <td className="num mono">{r.other ? r.other.toLocaleString() : '·'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > COUNTERS_SHOWN && (
        <button type="button" className="link" onClick={() => setAll(!all)}>
          {all ? `Show the busiest ${COUNTERS_SHOWN}` : `Show all ${rows.length.toLocaleString()} GVRs`}
        </button>
      )}
    </div>
  );
}
