// Above every screen while a recording is shown: which one, that it is read-only, and the way back
// to the live cluster (which kept running behind it).
import { errorMessage } from '../../shared/ui/call-errors.js';
import { useRecordings } from './use-recordings.js';

export function RecordingBanner() {
  const { query, client, act, busy, failed } = useRecordings();
  const shown = query.data?.recordings.find((r) => r.open);
  if (!shown) return null;
  return (
    <div className="offline-banner recording-banner" role="region" aria-label="Recording shown">
      <span className="offline-mark" aria-hidden="true" />
      <p>
        <strong>Viewing recording {shown.name} — read-only.</strong>{' '}
        <span className="muted">Every screen shows what the recording holds; the live session keeps running behind it.</span>
        {failed !== null && <span className="error-text"> {errorMessage(failed.error)}</span>}
      </p>
      <button
        type="button"
        className="btn btn-primary"
        disabled={busy !== null}
        onClick={() => void act('leave', () => client.leaveRecording())}
      >
        Back to live
      </button>
    </div>
  );
}
