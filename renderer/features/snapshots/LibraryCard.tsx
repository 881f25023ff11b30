// The snapshots opened or kept in this window: view one offline, return to live (or to the recording
// opened from a file, when one is shown), remove.
import { useSessionBehind } from '../../shared/shown-recording.js';
import { formatDateTime } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import { describeSource, releasesSummary } from './describe.js';
import type { LibraryEntry } from '../../shared/snapshot-library.js';
import { useRequiredView } from './view.js';

export function LibraryCard({ entries }: { entries: readonly LibraryEntry[] }) {
  const view = useRequiredView();
  const behind = useSessionBehind()?.recording;
  return (
    <div className="card">
      <h3>Snapshots in this window</h3>
      {entries.length === 0 ? (
        <Empty>No snapshot yet: open a file, or keep {behind ? 'a moment of the recording' : 'the live state'} for comparison.</Empty>
      ) : (
        <div className="table-scroll">
          <table className="simple-table snapshot-list">
            <caption className="sr-only">Snapshots opened or kept in this window</caption>
            <thead>
              <tr>
                <th scope="col">snapshot</th>
                <th scope="col">taken at</th>
                <th scope="col">from</th>
                <th scope="col">servers</th>
                <th scope="col">GVRs</th>
                <th scope="col">events</th>
                <th scope="col">
                  <span className="sr-only">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => {
                const viewing = view.offline?.entry.id === e.id;
                const s = e.snapshot;
                return (
                  <tr key={e.id} className={viewing ? 'selected' : ''}>
                    <th scope="row" className="mono">
                      {e.label}
                      {e.origin === 'live' && <span className="badge">kept live</span>}
                      {e.origin === 'recording' && <span className="badge">from the recording</span>}
                    </th>
                    <td className="mono">{formatDateTime(Date.parse(s.takenAt))}</td>
                    <td>{describeSource(s)}</td>
                    <td>
                      {s.servers.length} · <span className="mono">{releasesSummary(s)}</span>
                    </td>
                    <td>
                      {s.routeTable.rows.length.toLocaleString()}{' '}
                      <span className={s.routeTable.skewed.length ? 'warn-text' : 'muted'}>({s.routeTable.skewed.length} skewed)</span>
                    </td>
                    <td>{s.events.length.toLocaleString()}</td>
                    <td className="row-actions">
                      {viewing ? (
                        <button type="button" className="btn" onClick={view.leave}>
                          {behind ? 'Return to the recording' : 'Return to live'}
                        </button>
                      ) : (
                        <button type="button" className="btn" onClick={() => view.open(e)} aria-label={`View ${e.label} offline`}>
                          View offline
                        </button>
                      )}
                      <button
                        type="button"
                        className="btn"
                        onClick={() => (viewing ? (view.leave(), view.library.remove(e.id)) : view.library.remove(e.id))}
                        aria-label={`Remove ${e.label}`}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
