// Compare two snapshots (or one with the live state taken now) and show the difference. A recording
// opened from a file has no live state to take: two snapshots (moments kept, files opened) are compared.
import type { FormEvent } from 'react';
import { ErrorState, Loading } from '../../shared/ui/states.js';
import { formatDateTime } from '../../shared/ui/format.js';
import { LIVE_NOW, type LibraryState } from '../../shared/snapshot-library.js';
import { SnapshotDiffView } from './SnapshotDiffView.js';
import { useRequiredView } from './view.js';
import { compareChosen } from './workflows.js';

export function CompareCard({ state, withLive }: { state: LibraryState; withLive: boolean }) {
  const view = useRequiredView();
  const { entries } = state;
  const compare = withLive || state.compare.afterId !== LIVE_NOW ? state.compare : { ...state.compare, afterId: '' };
  const options = (
    <>
      {entries.map((e) => (
        <option key={e.id} value={e.id}>
          {e.label} · {formatDateTime(Date.parse(e.snapshot.takenAt))}
        </option>
      ))}
      {withLive && <option value={LIVE_NOW}>Current live state (taken now)</option>}
    </>
  );
  const canCompare = compare.beforeId !== '' && compare.afterId !== '' && compare.status !== 'running';

  const run = (e: FormEvent) => {
    e.preventDefault();
    if (canCompare) void compareChosen(view, compare);
  };

  return (
    <div className="card">
      <h3>Compare two snapshots</h3>
      <form className="toolbar compare-form" onSubmit={run} aria-label="Compare two snapshots">
        <label className="field">
          <span>Before</span>
          <select value={compare.beforeId} onChange={(e) => view.library.setCompare({ beforeId: e.target.value })}>
            {compare.beforeId === '' && (
              <option value="" disabled>
                choose a snapshot
              </option>
            )}
            {options}
          </select>
        </label>
        <span className="muted" aria-hidden="true">
          →
        </span>
        <label className="field">
          <span>After</span>
          <select value={compare.afterId} onChange={(e) => view.library.setCompare({ afterId: e.target.value })}>
            {compare.afterId === '' && (
              <option value="" disabled>
                choose a snapshot
              </option>
            )}
            {options}
          </select>
        </label>
        <button type="submit" className="btn btn-primary" disabled={!canCompare}>
          {compare.status === 'running' ? 'Comparing…' : 'Compare'}
        </button>
      </form>
      {entries.length === 0 && compare.status === 'idle' && (
        <p className="muted small">
          {withLive
            ? 'Keep the live state (or open a file) before a rollout step, then compare it with the current live state after the step.'
            : 'Keep two moments of the recording (drag the scrubber to each), or open files, then compare them.'}
        </p>
      )}
      {compare.status === 'running' && <Loading what="the comparison" />}
      {compare.status === 'error' && <ErrorState error={compare.error} />}
      {compare.status === 'done' && compare.result && (
        <SnapshotDiffView before={compare.result.before} after={compare.result.after} diff={compare.result.diff} />
      )}
    </div>
  );
}
