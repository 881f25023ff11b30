// The thin strip over the scrubber: the recording's span, each server's release change marked where
// it happened, the stretches a server was not ready (down, draining, out of reach, gone) shaded, and
// the window chosen. Dragging across the strip chooses a window; a click on it, a moment.
import { useRef, useState, type PointerEvent } from 'react';
import type { RecordingTimeline } from '../../../proxy-core/contract/index.js';
import { formatClock, shortRelease } from '../../shared/ui/format.js';
import type { TimeWindow } from '../../shared/view-mode.js';

/** A drag shorter than this many pixels is a click. */
const CLICK_PX = 4;

interface Mark {
  readonly at: number;
  readonly label: string;
}
interface Stretch {
  readonly from: number;
  readonly to: number;
  readonly label: string;
}

export function stripOf(timeline: RecordingTimeline, end: number): { releases: Mark[]; down: Stretch[] } {
  const releases: Mark[] = [];
  const down: Stretch[] = [];
  for (const server of timeline.servers) {
    let release: string | undefined;
    let since: { at: number; value: string } | undefined;
    for (const c of server.changes) {
      if (c.kind === 'release') {
        // The first release seen is where the server started, not a change.
        if (release !== undefined && c.value !== release)
          releases.push({ at: c.at, label: `${server.name}: ${shortRelease(release)} → ${shortRelease(c.value)} at ${formatClock(c.at)}` });
        release = c.value;
        continue;
      }
      if (since)
        down.push({ from: since.at, to: c.at, label: `${server.name} ${since.value} ${formatClock(since.at)}–${formatClock(c.at)}` });
      // Before the first probe answers a server is 'unknown': not a fault to shade.
      since = c.value === 'ready' || c.value === 'unknown' ? undefined : { at: c.at, value: c.value };
    }
    if (since) down.push({ from: since.at, to: end, label: `${server.name} ${since.value} since ${formatClock(since.at)}` });
  }
  return { releases, down };
}

export function TimelineStrip({
  timeline,
  start,
  end,
  window,
  onWindow,
  onMoment,
}: {
  timeline: RecordingTimeline;
  start: number;
  end: number;
  /** The window shown, drawn as a band. */
  window?: TimeWindow | null;
  onWindow?: (w: TimeWindow) => void;
  onMoment?: (at: number) => void;
}) {
  const { releases, down } = stripOf(timeline, end);
  const x = (at: number) => `${(Math.min(Math.max(at - start, 0), end - start) / (end - start)) * 100}%`;
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);
  const strip = useRef<HTMLDivElement>(null);
  const timeAt = (clientX: number) => {
    const box = strip.current!.getBoundingClientRect();
    const share = box.width > 0 ? Math.min(Math.max((clientX - box.left) / box.width, 0), 1) : 1;
    return Math.round(start + share * (end - start));
  };
  const down_ = (e: PointerEvent<HTMLDivElement>) => {
    if (!onWindow || e.button !== 0) return;
    e.currentTarget.setPointerCapture?.(e.pointerId);
    setDrag({ x0: e.clientX, x1: e.clientX });
  };
  const move = (e: PointerEvent<HTMLDivElement>) => drag && setDrag({ ...drag, x1: e.clientX });
  const up = (e: PointerEvent<HTMLDivElement>) => {
    if (!drag) return;
    setDrag(null);
    const [a, b] = [timeAt(Math.min(drag.x0, e.clientX)), timeAt(Math.max(drag.x0, e.clientX))];
    if (Math.abs(e.clientX - drag.x0) < CLICK_PX) onMoment?.(a);
    else if (a < b) onWindow?.({ from: a, to: b });
  };
  const band = drag ? { from: timeAt(Math.min(drag.x0, drag.x1)), to: timeAt(Math.max(drag.x0, drag.x1)) } : (window ?? null);
  return (
    <div
      ref={strip}
      className={`timeline-strip${onWindow ? ' is-draggable' : ''}`}
      aria-label="Release changes and servers not ready over the recording"
      title={onWindow ? 'Drag across the strip to show a window of the recording; click it for a moment' : undefined}
      onPointerDown={down_}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={() => setDrag(null)}
    >
      {band && (
        <span
          className="strip-window"
          data-testid="window-band"
          data-from={band.from}
          data-to={band.to}
          style={{ left: x(band.from), width: `calc(${x(band.to)} - ${x(band.from)})` }}
          title={`${formatClock(band.from)}–${formatClock(band.to)}`}
        />
      )}
      {down.map((d, i) => (
        <span key={`d${i}`} className="strip-down" style={{ left: x(d.from), width: `calc(${x(d.to)} - ${x(d.from)})` }} title={d.label} />
      ))}
      {releases.map((r, i) => (
        <span key={`r${i}`} className="strip-release" style={{ left: x(r.at) }} title={r.label} data-testid="release-mark" />
      ))}
    </div>
  );
}
