// The AGE cell of kubectl's tables: the time since creation, rounded as kube-apiserver's printers
// round it (seconds up to 2 minutes, then minutes, hours, days, years, with a second unit while short).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** `90s`, `5m3s`, `17m`, `3h5m`, `10h`, `3d4h`, `12d`, `2y30d`, `9y`; `<invalid>` for a time ahead of the clock. */
export function humanAge(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Clocks a second apart still read as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(ms / DAY);
  if (hours < 8 * 24) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 2 * 365 * 24) return `${days}d`;
  const years = Math.trunc(ms / YEAR);
  if (hours < 8 * 365 * 24) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function withRest(value: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${value}${unit}` : `${value}${unit}${rest}${restUnit}`;
}

/** The AGE cell of an object: `<unknown>` when it has no creation time. */
export function ageOf(creationTimestamp: unknown, now: number): string {
  const created = typeof creationTimestamp === 'string' ? Date.parse(creationTimestamp) : NaN;
  return Number.isNaN(created) ? '<unknown>' : humanAge(now - created);
}
