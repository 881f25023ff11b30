// The time control of the top bar: "Live", or a moment of the session's recording picked with a
// scrubber drawn over the recording's release-and-health strip. The screens move to a moment when the
// scrubber is let go (or stepped with the keyboard), not on every pixel of a drag.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { formatClock } from '../../shared/ui/format.js';
import { useView, type ViewState } from '../../shared/view-mode.js';
import { TimelineStrip } from './TimelineStrip.js';

/** Nothing for a component rendered on its own, a snapshot shown offline, or a session that records nothing. */
export function TimeControl() {
  const view = useView();
  return view && !view.offline ? <Scrubber view={view} /> : null;
}

function Scrubber({ view }: { view: ViewState }) {
  const timeline = useQuery(
    {
      queryKey: ['recording-timeline'],
      queryFn: () => view.live.getRecordingTimeline(),
      // The recording grows while the session runs; a session that records nothing is asked again only when it changes.
      refetchInterval: (query) => (query.state.data === null ? false : 3_000),
      retry: false,
    },
    view.liveQueries,
  );
  const [dragged, setDragged] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // A native `change`: fired when the thumb is let go or stepped, where React's onChange fires on every move.
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    const commit = () => {
      const at = Number(el.value);
      view.showMoment(at).then(
        () => setError(null),
        (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
      );
    };
    el.addEventListener('change', commit);
    return () => el.removeEventListener('change', commit);
  }, [view, timeline.data]);
  useEffect(() => setDragged(null), [view.moment]);

  const t = timeline.data;
  if (!t) return null;
  const end = Math.max(t.endedAt, t.startedAt + 1_000);
  const value = dragged ?? view.moment?.at ?? end;
  const live = view.moment === null;
  return (
    <div className="time-control" role="group" aria-label="Time">
      <button
        type="button"
        className={`btn time-live${live ? ' is-live' : ''}`}
        aria-pressed={live}
        onClick={live ? undefined : view.leave}
      >
        Live
      </button>
      <div className="time-track">
        <TimelineStrip timeline={t} start={t.startedAt} end={end} />
        <input
          ref={input}
          type="range"
          aria-label="Moment of the recording"
          min={t.startedAt}
          max={end}
          step={1_000}
          value={value}
          aria-valuetext={formatClock(value)}
          onChange={(e) => setDragged(Number(e.target.value))}
        />
      </div>
      <span className="time-label" aria-live="polite">
        {live && dragged === null ? `recorded since ${formatClock(t.startedAt)}` : formatClock(value)}
      </span>
      {error && (
        <span className="error-text" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
