// Server health's timeline: each apiserver's health and release as segments over the rollout, so
// when each server went down and came back upgraded reads at a glance.
import type { HealthSample, HealthState as Health } from '../../../proxy-core/contract/index.js';
import type { ServerNamer } from '../../shared/server-names.js';
import { formatClock, healthLabel, shortRelease } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';

export interface TimelineSegment {
  from: number;
  to: number;
  health: Health;
  release: string;
}

/** Consecutive samples with the same health and release become one segment. */
export function timelineSegments(samples: readonly HealthSample[], now: number): TimelineSegment[] {
  const out: TimelineSegment[] = [];
  for (const s of samples) {
    const release = shortRelease(s.gitVersion);
    const last = out.at(-1);
    if (last && last.health === s.health && (last.release === release || release === '?')) {
      last.to = s.at;
      continue;
    }
    if (last) last.to = s.at;
    out.push({ from: s.at, to: s.at, health: s.health, release: release === '?' && last ? last.release : release });
  }
  const last = out.at(-1);
  if (last) last.to = Math.max(last.to, now);
  return out;
}

/** `now`: where the timeline ends (a recorded moment, or the present). */
export function Timeline({
  history,
  nameOf,
  now = Date.now(),
}: {
  history: { name: string; samples: HealthSample[] }[];
  nameOf: ServerNamer;
  now?: number;
}) {
  const all = history.flatMap((h) => h.samples.map((s) => s.at));
  if (all.length === 0) return <Empty>No probe has answered yet.</Empty>;
  const start = Math.min(...all);
  const span = Math.max(now - start, 1);
  return (
    <div className="timeline" role="list" aria-label="Health and release per apiserver over time">
      {history.map((h) => (
        <div className="timeline-row" role="listitem" key={h.name}>
          <span className="timeline-name" title={h.name}>
            {nameOf(h.name)}
          </span>
          <div className="timeline-track">
            {timelineSegments(h.samples, now).map((seg, i) => {
              const widthPercent = Math.max(((seg.to - seg.from) / span) * 100, 0.4);
              return (
                <span
                  key={i}
                  className={`seg seg-${seg.health}`}
                  style={{ left: `${((seg.from - start) / span) * 100}%`, width: `${widthPercent}%` }}
                  title={`${healthLabel[seg.health]} · ${seg.release} · ${formatClock(seg.from)}–${formatClock(seg.to)}`}
                >
                  {/* A label cut to one letter says nothing: narrow segments keep only their title. */}
                  {widthPercent >= 4 && <span className="seg-label">{seg.release}</span>}
                </span>
              );
            })}
          </div>
        </div>
      ))}
      <div className="timeline-axis" aria-hidden="true">
        <span>{formatClock(start)}</span>
        <span>{formatClock(now)}</span>
      </div>
      <ul className="legend">
        {(['ready', 'draining', 'not-ready', 'unreachable', 'gone', 'unknown'] as Health[]).map((hs) => (
          <li key={hs}>
            <span className={`cell-chip seg-${hs}`} aria-hidden="true" /> {healthLabel[hs]}
          </li>
        ))}
      </ul>
    </div>
  );
}
