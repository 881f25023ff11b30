// What the app says while it shows a recorded moment: a banner above every screen (when, that it is
// recorded, the way back), and, in a screen the recording has no data for at a moment, that plainly.
import { formatClock, formatDateTime } from '../shared/ui/format.js';
import { Empty } from '../shared/ui/states.js';
import type { MomentView } from '../shared/view-mode.js';

export function MomentBanner({ moment, onLeave }: { moment: MomentView; onLeave: () => void }) {
  return (
    <div className="offline-banner moment-banner" role="region" aria-label="Recorded moment">
      <span className="offline-mark" aria-hidden="true" />
      <p>
        <strong>
          At <time dateTime={new Date(moment.at).toISOString()}>{formatClock(moment.at)}</time> — recorded
        </strong>{' '}
        <span className="muted">
          {formatDateTime(moment.at)} · the session's recording, read-only: the servers and the GVR matrix as they were then.
        </span>
      </p>
      <button type="button" className="btn btn-primary" onClick={onLeave}>
        Back to live
      </button>
    </div>
  );
}

export function MomentUnavailable({ screen, moment }: { screen: string; moment: MomentView }) {
  return (
    <section className="panel" aria-label={`${screen} at a recorded moment`}>
      <header className="panel-head">
        <h2>{screen}</h2>
      </header>
      <Empty>
        {screen} has no data at a recorded moment ({formatClock(moment.at)}) yet: the GVR matrix and Server health show the recording then.
        Go back to live for {screen}.
      </Empty>
    </section>
  );
}
