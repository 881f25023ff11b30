// Medians with their spread, and ratios taken round by round.

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread | undefined {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const mid = Math.floor(xs.length / 2);
  const median = xs.length % 2 ? (xs[mid] as number) : ((xs[mid - 1] as number) + (xs[mid] as number)) / 2;
  return { median, min: xs[0] as number, max: xs[xs.length - 1] as number, n: xs.length };
}

/** a[i] / b[i] for every round both have. */
export function roundRatios(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): number[] {
  const out: number[] = [];
  for (const [round, x] of a) {
    const y = b.get(round);
    if (y !== undefined && y > 0) out.push(x / y);
  }
  return out;
}

/** A number with at most `digits` significant decimals, thousands grouped. */
export function fmt(v: number | undefined, digits = 0): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(digits);
}

export function fmtSpread(s: Spread | undefined, digits = 0): string {
  if (!s) return '—';
  if (s.n === 1) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/**
 * Prints two measurements of the same keys side by side with their difference (b − a), the largest
 * differences first: the A/B scripts' per-function and per-kind tables.
 */
export function printSideBySide(title: string, a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, top = 30): void {
  console.log(title);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => [k, a.get(k) ?? 0, b.get(k) ?? 0] as const);
  for (const [k, x, y] of rows.sort((p, q) => Math.abs(q[2] - q[1]) - Math.abs(p[2] - p[1])).slice(0, top))
    console.log(`${x.toFixed(2).padStart(7)} ${y.toFixed(2).padStart(7)} ${(y - x).toFixed(2).padStart(7)}  ${k}`);
}
