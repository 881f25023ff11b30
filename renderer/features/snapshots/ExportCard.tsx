// Export the live state to a file, or keep it in the window's library for a comparison.
import { useMutation } from '@tanstack/react-query';
import { downloadSnapshot } from './describe.js';
import { useRequiredView } from './view.js';
import { liveLabel } from './workflows.js';

export function ExportCard() {
  const view = useRequiredView();
  const exporting = useMutation({ mutationFn: () => view.live.takeSnapshot(), onSuccess: downloadSnapshot });
  const keeping = useMutation({
    mutationFn: () => view.live.takeSnapshot(),
    onSuccess: (snapshot) => view.library.add(snapshot, liveLabel(Date.parse(snapshot.takenAt)), 'live'),
  });
  const error = exporting.error ?? keeping.error;
  return (
    <div className="card">
      <h3>Record the live state</h3>
      <p className="muted small">
        Servers and releases, each server’s own GVRs, the route table with its skew, counters by outcome × GVR × server and the recent
        requests. Never credentials.
      </p>
      <div className="toolbar card-actions">
        <button type="button" className="btn btn-primary" onClick={() => exporting.mutate()} disabled={exporting.isPending}>
          {exporting.isPending ? 'Exporting…' : 'Export current state'}
        </button>
        <button type="button" className="btn" onClick={() => keeping.mutate()} disabled={keeping.isPending}>
          Keep for comparison
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
