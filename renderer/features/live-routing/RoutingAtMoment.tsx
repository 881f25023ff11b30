// Live routing at a single recorded moment: a stream of requests has nothing to show at an instant,
// so the screen says so and offers what it can show — a window of the recording, replayed.
import { useState } from 'react';
import { formatClock } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import type { MomentView, ViewState } from '../../shared/view-mode.js';

/** The span offered from a moment: the minute up to it. */
const MINUTE_MS = 60_000;

export function RoutingAtMoment({ moment, view }: { moment: MomentView; view: ViewState }) {
  const [error, setError] = useState<string | null>(null);
  const window = { from: moment.at - MINUTE_MS, to: moment.at + 1 };
  return (
    <section className="panel routing" aria-label="Live routing at a recorded moment">
      <header className="panel-head">
        <h2>Live routing</h2>
      </header>
      <Empty>
        <p>
          Live routing has no data at a recorded moment ({formatClock(moment.at)}): it shows requests as they go by, and a single moment
          holds none. Choose a window in the time control (&quot;15 min&quot;, &quot;Whole&quot;, &quot;Range&quot;, or drag across the
          strip) to replay that part of the recording here, or go back to live.
        </p>
        <button
          type="button"
          className="btn btn-primary"
          style={{ marginTop: '0.75rem' }}
          onClick={() =>
            view.showWindow(window, 'range').then(
              () => setError(null),
              (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
            )
          }
        >
          Replay the minute up to {formatClock(moment.at)}
        </button>
        {error && (
          <p role="alert" className="muted">
            {error}
          </p>
        )}
      </Empty>
    </section>
  );
}
