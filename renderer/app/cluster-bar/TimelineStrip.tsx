// The thin strip under the scrubber: the recording's span, each server's release change marked where
// it happened, and the stretches a server was not ready (down, draining, out of reach, gone) shaded.
import type { RecordingTimeline } from '../../../proxy-core/contract/index.js';
import { formatClock, shortRelease } from '../../shared/ui/format.js';

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

export function TimelineStrip({ timeline, start, end }: { timeline: RecordingTimeline; start: number; end: number }) {
  const { releases, down } = stripOf(timeline, end);
  const x = (at: number) => `${(Math.min(Math.max(at - start, 0), end - start) / (end - start)) * 100}%`;
  return (
    <div className="timeline-strip" aria-label="Release changes and servers not ready over the recording">
      {down.map((d, i) => (
        <span key={`d${i}`} className="strip-down" style={{ left: x(d.from), width: `calc(${x(d.to)} - ${x(d.from)})` }} title={d.label} />
      ))}
      {releases.map((r, i) => (
        <span key={`r${i}`} className="strip-release" style={{ left: x(r.at) }} title={r.label} data-testid="release-mark" />
      ))}
    </div>
  );
}
