// A window of the recording typed in: its start and end as clock times (to the second) on the day
// the recording covers, checked against the recording's span before the screens move.
import { useState, type FormEvent } from 'react';
import { formatClock } from '../../shared/ui/format.js';
import type { TimeWindow } from '../../shared/view-mode.js';

const DAY_MS = 86_400_000;

/** "HH:MM" or "HH:MM:SS" as the moment within `span` it names (a recording past midnight: the next day's), or null. */
export function timeInSpan(text: string, span: TimeWindow): number | null {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const ms = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3] ?? 0)) * 1_000;
  const day = new Date(span.from);
  day.setHours(0, 0, 0, 0);
  for (let d = 0; d * DAY_MS <= span.to - day.getTime(); d++) {
    const at = day.getTime() + d * DAY_MS + ms;
    // The span's ends fall within a second: a time typed to the second names that whole second.
    if (at > span.from - 1_000 && at <= span.to) return Math.max(at, span.from);
  }
  return null;
}

export function RangeFields({
  span,
  initial,
  onApply,
  onCancel,
}: {
  span: TimeWindow;
  initial: TimeWindow;
  onApply: (w: TimeWindow) => void;
  onCancel: () => void;
}) {
  const [from, setFrom] = useState(formatClock(initial.from));
  const [to, setTo] = useState(formatClock(initial.to - 1));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const start = timeInSpan(from, span);
    const end = timeInSpan(to, span);
    const recorded = `${formatClock(span.from)}–${formatClock(span.to)}`;
    if (start === null) return setProblem(`"From" must be a time in the recording (${recorded}).`);
    if (end === null) return setProblem(`"To" must be a time in the recording (${recorded}).`);
    // The end's whole second is in the window.
    const window = { from: start, to: Math.min(end + 1_000, span.to + 1) };
    if (!(window.from < window.to)) return setProblem('"From" must be before "To".');
    setProblem(null);
    onApply(window);
  };
  return (
    <form className="time-range" aria-label="Window of the recording" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onCancel()}>
      <label className="field">
        <span>From</span>
        <input type="time" step={1} value={from} onChange={(e) => setFrom(e.target.value)} required autoFocus />
      </label>
      <label className="field">
        <span>To</span>
        <input type="time" step={1} value={to} onChange={(e) => setTo(e.target.value)} required />
      </label>
      <button type="submit" className="btn btn-primary">
        Show
      </button>
      <button type="button" className="btn" onClick={onCancel}>
        Cancel
      </button>
      {problem && (
        <span className="error-text" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}
