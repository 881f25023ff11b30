// Above every screen while a snapshot is shown: what it is, that nothing is live, and the way back.
import { useSessionBehind } from '../../shared/shown-recording.js';
import { formatDateTime } from '../../shared/ui/format.js';
import type { OfflineView } from '../../shared/view-mode.js';
import { describeSource } from './describe.js';

export function OfflineBanner({ offline, onLeave }: { offline: OfflineView; onLeave: () => void }) {
  const s = offline.snapshot;
  const behind = useSessionBehind()?.recording;
  return (
    <div className="offline-banner" role="region" aria-label="Offline snapshot">
      <span className="offline-mark" aria-hidden="true" />
      <p>
        <strong>
          Viewing snapshot taken at <time dateTime={s.takenAt}>{formatDateTime(Date.parse(s.takenAt))}</time> from {describeSource(s)} —
          offline.
        </strong>{' '}
        <span className="muted">
          {offline.entry.label} · Peerscope {s.source.peerscopeVersion} · read-only: nothing here reaches the cluster.
        </span>
      </p>
      <button type="button" className="btn btn-primary" onClick={onLeave}>
        {behind ? 'Return to the recording' : 'Return to live'}
      </button>
    </div>
  );
}
