// Snapshots: export the live state to a file, open snapshot files (picker or drag-and-drop) to view
// them offline in every screen, and compare two (files, or the live state taken now). Reading a file
// and comparing are the core's (CoreClient.readSnapshot / compareSnapshots): a file is shown whole or
// not at all, and a bad one is named with the field or line and column at fault. At a recorded moment
// (the time control), a snapshot of that moment can be taken too. In a recording opened from a file
// there is no live state to take: its end, or the moment shown, is taken from the file.
import { CompareCard } from './CompareCard.js';
import { ExportCard } from './ExportCard.js';
import { ImportCard } from './ImportCard.js';
import { LibraryCard } from './LibraryCard.js';
import { MomentCard } from './MomentCard.js';
import { OfflineSummary } from './OfflineSummary.js';
import { useShownSession } from '../../shared/shown-recording.js';
import { useLibrary, useRequiredView } from './view.js';

export function Snapshots() {
  const view = useRequiredView();
  const state = useLibrary(view);
  const recording = useShownSession()?.recording ?? null;
  return (
    <section className="panel snapshots" aria-labelledby="snapshots-title">
      <header className="panel-head">
        <div>
          <h2 id="snapshots-title">Snapshots</h2>
          <p className="muted">
            Record the routing state at each step of an upgrade, open a saved one offline, and compare two (before and after a step).
          </p>
        </div>
      </header>
      {view.offline && <OfflineSummary entry={view.offline.entry} />}
      <div className="snapshot-actions">
        {view.moment ? (
          <MomentCard at={view.moment.at} recording={recording} />
        ) : (
          recording && <MomentCard at={recording.endedAt} recording={recording} />
        )}
        {!recording && <ExportCard />}
        <ImportCard />
      </div>
      <LibraryCard entries={state.entries} />
      <CompareCard state={state} withLive={!recording} />
    </section>
  );
}
