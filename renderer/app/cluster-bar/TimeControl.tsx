// The time control of the top bar: "Live", a window of the session's recording (the last 15 minutes,
// the whole rollout, or a range typed in or dragged on the strip), or a moment picked with the scrubber
// drawn over the recording's release-and-health strip. The screens move when the scrubber is let go (or
// stepped with the keyboard), not on every pixel of a drag. A recording opened from a file has ended:
// in place of "Live" it has "End" (the recording's last state, which its session answers).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RecordingTimeline } from '../../../proxy-core/contract/index.js';
import { formatClock } from '../../shared/ui/format.js';
import { useView, type TimeWindow, type ViewState, type WindowChoice } from '../../shared/view-mode.js';
import { RangeFields } from './RangeFields.js';
import { TimelineStrip } from './TimelineStrip.js';

const LAST_MINUTES = 15;

/** Nothing for a component rendered on its own, a snapshot shown offline, or a session that records nothing. */
export function TimeControl() {
  const view = useView();
  return view && !view.offline ? <Recorded view={view} /> : null;
}

/** The recording's span as the control measures it: at least a second, its end the last thing recorded. */
export function spanOf(t: RecordingTimeline): TimeWindow {
  return { from: t.startedAt, to: Math.max(t.endedAt, t.startedAt + 1_000) };
}

export function windowOf(kind: Exclude<WindowChoice, 'range'>, t: RecordingTimeline): TimeWindow {
  const span = spanOf(t);
  // `to` is exclusive: one past the last millisecond recorded.
  return kind === 'whole'
    ? { from: span.from, to: span.to + 1 }
    : { from: Math.max(span.from, span.to - LAST_MINUTES * 60_000), to: span.to + 1 };
}

export function formatWindow(w: TimeWindow): string {
  return `${formatClock(w.from)}–${formatClock(w.to - 1)}`;
}

function Recorded({ view }: { view: ViewState }) {
  const timeline = useQuery(
    {
      queryKey: ['recording-timeline'],
      queryFn: () => view.live.getRecordingTimeline(),
      // The recording grows while the session runs; one that has ended, or none, is not asked again.
      refetchInterval: (query) => (query.state.data === null || query.state.data?.ended ? false : 3_000),
      retry: false,
    },
    view.liveQueries,
  );
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const t = timeline.data;
  const report = (shown: Promise<void>) =>
    shown.then(
      () => setError(null),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  const choose = (choice: WindowChoice, w: TimeWindow) => {
    setEditing(false);
    void report(view.showWindow(w, choice));
  };
  // A recording opened from a file: its session answers its last state where a live one answers now.
  const ended = t?.ended === true;

  if (!t) return null;
  const live = view.moment === null;
  const mode = live ? 'live' : view.window ? (view.windowChoice ?? 'range') : 'moment';
  const label = live
    ? ended
      ? `the recording's end, ${formatClock(t.endedAt)}`
      : `recorded since ${formatClock(t.startedAt)}`
    : view.window
      ? formatWindow(view.window)
      : formatClock(view.moment!.at);
  return (
    <div className="time-control" role="group" aria-label="Time">
      <div className="time-modes" role="group" aria-label="What to show">
        <button
          type="button"
          className="btn time-mode"
          aria-pressed={mode === 'live'}
          title={ended ? "The recording's last state" : undefined}
          onClick={live ? undefined : view.leave}
        >
          {ended ? 'End' : 'Live'}
        </button>
        <button
          type="button"
          className="btn time-mode"
          aria-pressed={mode === 'last'}
          title={`The last ${LAST_MINUTES} minutes of the recording`}
          onClick={() => choose('last', windowOf('last', t))}
        >
          {LAST_MINUTES} min
        </button>
        <button
          type="button"
          className="btn time-mode"
          aria-pressed={mode === 'whole'}
          title="The whole recording"
          onClick={() => choose('whole', windowOf('whole', t))}
        >
          Whole
        </button>
        <button
          type="button"
          className="btn time-mode"
          aria-pressed={mode === 'range' || editing}
          aria-expanded={editing}
          title="A range: type its start and end, or drag across the strip"
          onClick={() => setEditing((e) => !e)}
        >
          Range
        </button>
      </div>
      <Scrubber view={view} timeline={t} onWindow={(w) => choose('range', w)} onMoment={(at) => void report(view.showMoment(at))} />
      <span className="time-label" aria-live="polite" data-mode={mode}>
        {label}
      </span>
      {editing && (
        <RangeFields
          span={spanOf(t)}
          initial={view.window ?? windowOf('last', t)}
          onApply={(w) => choose('range', w)}
          onCancel={() => setEditing(false)}
        />
      )}
      {error && (
        <span className="error-text" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

function Scrubber({
  view,
  timeline: t,
  onWindow,
  onMoment,
}: {
  view: ViewState;
  timeline: RecordingTimeline;
  onWindow: (w: TimeWindow) => void;
  onMoment: (at: number) => void;
}) {
  const [dragged, setDragged] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const momentOf = useRef(onMoment);
  momentOf.current = onMoment;
  // A native `change`: fired when the thumb is let go or stepped, where React's onChange fires on every move.
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    const commit = () => momentOf.current(Number(el.value));
    el.addEventListener('change', commit);
    return () => el.removeEventListener('change', commit);
  }, []);
  useEffect(() => setDragged(null), [view.moment, view.window]);
  const { from: start, to: end } = spanOf(t);
  const value = dragged ?? view.moment?.at ?? end;
  return (
    <div className="time-track">
      <TimelineStrip timeline={t} start={start} end={end} window={view.window} onWindow={onWindow} onMoment={onMoment} />
      <input
        ref={input}
        type="range"
        aria-label="Moment of the recording"
        min={start}
        max={end}
        step={1_000}
        value={Math.min(Math.max(value, start), end)}
        aria-valuetext={formatClock(value)}
        onChange={(e) => setDragged(Number(e.target.value))}
      />
    </div>
  );
}
