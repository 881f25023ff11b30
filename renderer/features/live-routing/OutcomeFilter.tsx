// The outcome chips over a stream: each outcome's count in the rows held, and which outcomes are shown.
import { useMemo, useState } from 'react';
import { outcomeStyle, shownOutcomes, type ShownOutcome } from '../../shared/ui/format.js';
import type { StreamRow } from './stream-rows.js';

function zeroCounts(): Record<ShownOutcome, number> {
  return Object.fromEntries(shownOutcomes.map((o) => [o, 0])) as Record<ShownOutcome, number>;
}

export function useOutcomeFilter(rows: readonly StreamRow[]) {
  const [hidden, setHidden] = useState<ReadonlySet<ShownOutcome>>(new Set());
  const visible = useMemo(() => (hidden.size ? rows.filter((e) => !hidden.has(e.outcome)) : rows), [rows, hidden]);
  const inBuffer = useMemo(() => {
    const n = zeroCounts();
    for (const e of rows) n[e.outcome]++;
    return n;
  }, [rows]);
  const toggle = (o: ShownOutcome) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(o)) next.delete(o);
      else next.add(o);
      return next;
    });
  return { hidden, visible, inBuffer, toggle };
}

export function OutcomeFilter({
  outcomes,
  hidden,
  inBuffer,
  toggle,
}: {
  outcomes: readonly ShownOutcome[];
  hidden: ReadonlySet<ShownOutcome>;
  inBuffer: Record<ShownOutcome, number>;
  toggle: (o: ShownOutcome) => void;
}) {
  return (
    <div className="outcome-filter" role="group" aria-label="Show outcomes">
      {outcomes.map((o) => (
        <button key={o} type="button" className="chip-toggle" aria-pressed={!hidden.has(o)} onClick={() => toggle(o)}>
          <span className="swatch" style={{ background: outcomeStyle[o].color }} aria-hidden="true" />
          {outcomeStyle[o].label} <span className="count">{inBuffer[o]}</span>
        </button>
      ))}
    </div>
  );
}
