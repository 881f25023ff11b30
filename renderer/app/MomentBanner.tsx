// What the app says while it shows the recording: a banner above every screen (the moment or the
// window, that it is recorded, what each screen shows of it, the way back), and, in a screen the
// recording has no data for then, that plainly.
import { formatClock, formatDateTime } from '../shared/ui/format.js';
import { Empty } from '../shared/ui/states.js';
import type { MomentView, TimeWindow } from '../shared/view-mode.js';

export function MomentBanner({ moment, window, onLeave }: { moment: MomentView; window: TimeWindow | null; onLeave: () => void }) {
  return (
    <div className="offline-banner moment-banner" role="region" aria-label={window ? 'Recorded window' : 'Recorded moment'}>
      <span className="offline-mark" aria-hidden="true" />
      {window ? (
        <p>
          <strong>
            <time dateTime={new Date(window.from).toISOString()}>{formatClock(window.from)}</time>–
            <time dateTime={new Date(window.to - 1).toISOString()}>{formatClock(window.to - 1)}</time> — recorded window
          </strong>{' '}
          <span className="muted">
            {formatDateTime(window.from)} · read-only: Upgrade impact and False 404s by client cover the window, Live routing shows and
            replays it; the GVR matrix and Server health show the state at its end ({formatClock(moment.at)}).
          </span>
        </p>
      ) : (
        <p>
          <strong>
            At <time dateTime={new Date(moment.at).toISOString()}>{formatClock(moment.at)}</time> — recorded
          </strong>{' '}
          <span className="muted">
            {formatDateTime(moment.at)} · {moment.recording ? `recording ${moment.recording.name}` : "the session's recording"}, read-only:
            the servers and the GVR matrix as they were then.
          </span>
        </p>
      )}
      {/* In a recording opened from a file, leaving the moment shows the recording's end (the time control's "End"), not the live cluster. */}
      <button type="button" className="btn btn-primary" onClick={onLeave}>
        {moment.recording ? "Back to the recording's end" : 'Back to live'}
      </button>
    </div>
  );
}

/** In place of a screen the recording has no data for at this moment or over this window. */
export function MomentUnavailable({ screen, moment, window }: { screen: string; moment: MomentView; window: TimeWindow | null }) {
  const when = window
    ? `the recorded window ${formatClock(window.from)}–${formatClock(window.to - 1)}`
    : `a recorded moment (${formatClock(moment.at)})`;
  return (
    <section className="panel" aria-label={`${screen} at a recorded ${window ? 'window' : 'moment'}`}>
      <header className="panel-head">
        <h2>{screen}</h2>
      </header>
      <Empty>{unavailable(screen, moment, window, when)}</Empty>
    </section>
  );
}

/** Why the screen shows nothing then, and where to see it; in a recording opened from a file, "live" is not where its data is. */
function unavailable(screen: string, moment: MomentView, window: TimeWindow | null, when: string): string {
  const { recording } = moment;
  if (screen === 'Upgrade impact')
    return `Upgrade impact reads a span of the recording, not a single moment: choose a window in the time control ("15 min", "Whole" or "Range"), or go back to ${recording ? "the recording's end for its whole span" : 'live'}.`;
  // Over a window the matrix shows the state at the window's end, not over the window.
  const shown = window ? `the window’s end (${formatClock(window.to - 1)})` : when;
  if (screen === 'Discovery' && recording)
    return `${recording.name} keeps each server’s own discovery — the GVR matrix shows it at ${shown} — but not the merged document the port answered, so the comparison of the two needs a live cluster.`;
  return `${screen} has no data at ${when} yet: the GVR matrix and Server health show the recording then${window ? ', Upgrade impact and False 404s by client the window' : ''}. Go back to live for ${screen}.`;
}
