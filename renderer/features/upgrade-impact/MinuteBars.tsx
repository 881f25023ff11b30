// Requests per minute of one finding over the report's window, as small bars: whether a client still
// calls the API now, or did once an hour ago.
import type { ImpactFinding, ImpactReport } from '../../../proxy-core/contract/index.js';

const MINUTE_MS = 60_000;
const WIDTH = 120;
const HEIGHT = 18;

export function MinuteBars({ finding, report }: { finding: ImpactFinding; report: ImpactReport }) {
  const last = Math.floor(report.window.until / MINUTE_MS);
  const first = Math.max(Math.floor(report.window.since / MINUTE_MS), last - 59);
  const slots = last - first + 1;
  const max = Math.max(1, ...finding.minutes.map((m) => m.count));
  const bar = WIDTH / Math.max(slots, 10);
  const label = finding.minutes.map((m) => `${new Date(m.at).toISOString().slice(11, 16)} ${m.count}`).join(', ');
  return (
    <svg
      className="minute-bars"
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={`requests per minute (UTC): ${label || 'none in the window'}`}
    >
      {finding.minutes.map((m) => {
        const slot = Math.floor(m.at / MINUTE_MS) - first;
        if (slot < 0 || slot >= slots) return null;
        const h = Math.max(2, (m.count / max) * HEIGHT);
        return <rect key={m.at} x={WIDTH - (slots - slot) * bar} y={HEIGHT - h} width={Math.max(1, bar - 1)} height={h} />;
      })}
    </svg>
  );
}
