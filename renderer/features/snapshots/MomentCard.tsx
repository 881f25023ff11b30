// Take a snapshot of the recorded moment the time control shows: built by the core from the session's
// recording (CoreClient.takeSnapshotAt), exported as a file or kept in the library for a comparison.
// What the recording does not hold is left out of it and named in it. A recording opened from a file
// answers the same call from the file (its end being a moment too).
import { useMutation } from '@tanstack/react-query';
import type { ShownRecording } from '../../../proxy-core/contract/index.js';
import { formatClock } from '../../shared/ui/format.js';
import { downloadSnapshot } from './describe.js';
import { useRequiredView } from './view.js';

export const momentLabel = (at: number) => `recording at ${formatClock(at)}`;

/** `recording`: the recording opened from a file the moment is of (null: the session's own). */
export function MomentCard({ at, recording }: { at: number; recording: ShownRecording | null }) {
  const view = useRequiredView();
  const exporting = useMutation({ mutationFn: () => view.live.takeSnapshotAt({ at }), onSuccess: downloadSnapshot });
  const keeping = useMutation({
    mutationFn: () => view.live.takeSnapshotAt({ at }),
    onSuccess: (snapshot) => view.library.add(snapshot, momentLabel(at), 'recording'),
  });
  const error = exporting.error ?? keeping.error;
  return (
    <div className="card">
      <h3>Record the moment {formatClock(at)}</h3>
      <p className="muted small">
        From {recording ? recording.name : 'the session’s recording'}: servers and releases then, each server’s own GVRs, the route table
        with its skew and the counters up to that moment. The recent requests, client usage and the impact report are not recorded: the
        snapshot leaves them out and says so.
      </p>
      <div className="toolbar card-actions">
        <button type="button" className="btn btn-primary" onClick={() => exporting.mutate()} disabled={exporting.isPending}>
          {exporting.isPending ? 'Exporting…' : 'Export this moment'}
        </button>
        <button type="button" className="btn" onClick={() => keeping.mutate()} disabled={keeping.isPending}>
          Keep this moment for comparison
        </button>
      </div>
      {error && (
        <p className="error-text small" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
