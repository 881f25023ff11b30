// Recordings: every session the app runs is recorded into its folder (under a retention cap of age
// and size); here the operator sees the folder, sets the cap, opens a past recording — or a file from
// elsewhere — read-only in every screen, and goes back to live.
import { errorMessage } from '../../shared/ui/call-errors.js';
import { Empty, ErrorState, Loading } from '../../shared/ui/states.js';
import { useView } from '../../shared/view-mode.js';
import { OpenFileCard } from './OpenFileCard.js';
import { RecordingList } from './RecordingList.js';
import { RetentionCard } from './RetentionCard.js';
import { FAILED, useRecordings } from './use-recordings.js';
import './recordings.css';

export function Recordings() {
  const view = useView();
  const { query, client, act, busy, failed, clearFailed } = useRecordings();
  const beforeOpen = () => {
    if (view?.offline || view?.moment) view.leave();
  };
  return (
    <section className="panel recordings" aria-labelledby="recordings-title">
      <header className="panel-head">
        <div>
          <h2 id="recordings-title">Recordings</h2>
          <p className="muted">Every session is recorded here. Open one to see the rollout it holds in every screen, read-only.</p>
        </div>
      </header>
      {failed !== null && (
        <div className="state state-error" role="alert">
          <strong>{FAILED[failed.what] ?? 'That did not work.'}</strong> {errorMessage(failed.error)}
          <button type="button" className="btn" onClick={clearFailed}>
            Dismiss
          </button>
        </div>
      )}
      {query.isPending ? (
        <Loading what="recordings" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : query.data === null ? (
        <Empty>
          This Peerscope keeps no recordings folder: the desktop app and <code>peerscope demo --ui</code> do.{' '}
          <code>peerscope serve --record FILE</code> records a session into a file, which <code>peerscope recording</code> reads.
        </Empty>
      ) : (
        <>
          <div className="recordings-cards">
            <RetentionCard folder={query.data} client={client} act={act} busy={busy} />
            <OpenFileCard picker={query.data.picker} client={client} act={act} busy={busy} />
          </div>
          <div className="card">
            <h3>Past recordings</h3>
            <RecordingList recordings={query.data.recordings} client={client} act={act} busy={busy} beforeOpen={beforeOpen} />
          </div>
        </>
      )}
    </section>
  );
}
