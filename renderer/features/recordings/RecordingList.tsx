// The folder's recordings, newest first: span, servers, releases, size and events of each, the one
// being written and the one shown marked; Open shows one read-only in every screen, Delete removes it.
import type { CoreClient, PastRecording, Recordings } from '../../../proxy-core/contract/index.js';
import { formatDateTime } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import { formatBytes, formatSpan } from './use-recordings.js';

export function RecordingList({
  recordings,
  client,
  act,
  busy,
  beforeOpen,
}: {
  recordings: readonly PastRecording[];
  client: CoreClient;
  act: (what: string, action: () => Promise<Recordings>) => Promise<boolean>;
  busy: string | null;
  /** Leaves a snapshot or a moment shown, so the recording is what the screens show. */
  beforeOpen: () => void;
}) {
  if (recordings.length === 0) return <Empty>No recording yet: every session the app runs is recorded here.</Empty>;
  return (
    <div className="table-scroll">
      <table className="simple-table recording-list">
        <caption className="sr-only">Recordings in the folder</caption>
        <thead>
          <tr>
            <th scope="col">recording</th>
            <th scope="col">span</th>
            <th scope="col">servers</th>
            <th scope="col">releases</th>
            <th scope="col">size</th>
            <th scope="col">events</th>
            <th scope="col">
              <span className="sr-only">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {recordings.map((r) => (
            <tr key={r.name} className={r.open ? 'selected' : ''} data-testid="recording-row">
              <th scope="row" className="mono">
                {r.name}
                {r.writing && <span className="badge recording-now">recording now</span>}
                {r.open && <span className="badge">shown</span>}
              </th>
              {r.refused !== undefined ? (
                <td colSpan={3} className="warn-text">
                  Cannot be read: {r.refused}
                </td>
              ) : (
                <>
                  <td className="mono">
                    {r.startedAt !== undefined ? formatDateTime(r.startedAt) : '—'}
                    {r.startedAt !== undefined && r.endedAt !== undefined && (
                      <span className="muted"> · {formatSpan(r.endedAt - r.startedAt)}</span>
                    )}
                  </td>
                  <td>{r.servers?.join(', ') || '—'}</td>
                  <td className="mono">{r.releases?.join(' → ') || '—'}</td>
                </>
              )}
              <td>{formatBytes(r.bytes)}</td>
              <td>{r.events?.toLocaleString() ?? '—'}</td>
              <td className="recording-actions">
                <RowActions recording={r} client={client} act={act} busy={busy} beforeOpen={beforeOpen} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type ListProps = Parameters<typeof RecordingList>[0];

/** Open (back to live, for the one shown) and Delete (not the one being written, nor the one shown). */
function RowActions({ recording: r, client, act, busy, beforeOpen }: Omit<ListProps, 'recordings'> & { recording: PastRecording }) {
  return (
    <>
      {r.open ? (
        <button type="button" className="btn" disabled={busy !== null} onClick={() => void act('leave', () => client.leaveRecording())}>
          Back to live
        </button>
      ) : (
        <button
          type="button"
          className="btn"
          disabled={busy !== null || r.refused !== undefined}
          aria-label={`Open ${r.name}`}
          onClick={() => {
            beforeOpen();
            void act('open', () => client.openRecording({ name: r.name }));
          }}
        >
          Open
        </button>
      )}
      <button
        type="button"
        className="btn"
        disabled={busy !== null || r.writing === true || r.open === true}
        title={r.writing ? 'Being written by the running session' : r.open ? 'Shown now: go back to live first' : undefined}
        aria-label={`Delete ${r.name}`}
        onClick={() => {
          if (window.confirm(`Delete ${r.name}? It cannot be brought back.`))
            void act('delete', () => client.deleteRecording({ name: r.name }));
        }}
      >
        Delete
      </button>
    </>
  );
}
