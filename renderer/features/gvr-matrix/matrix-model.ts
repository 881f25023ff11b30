// What the GVR matrix shows, worked out apart from how: each cell's state and traffic, and the rows in
// their sections (skewed first) and API groups, filtered.
import type { ClusterGvrRates, RouteTableColumn, RouteTableRow, RouteTableView } from '../../../proxy-core/contract/index.js';

export type CellState = 'served' | 'missing' | 'down' | 'gone' | 'stale' | 'unknown';
export type MatrixFilter = 'all' | 'skewed' | 'uniform';

export const CELL_TEXT: Record<CellState, string> = {
  served: 'served',
  missing: 'not served',
  down: 'server down',
  gone: 'server gone',
  stale: 'discovery stale',
  unknown: 'not read yet',
};

export function cellState(column: RouteTableColumn, row: RouteTableRow): CellState {
  if (column.discovery === 'none') return 'unknown';
  if (column.health === 'gone') return 'gone';
  if (column.health === 'unreachable') return 'down';
  if (column.discovery === 'stale') return 'stale';
  return row.servers.includes(column.name) ? 'served' : 'missing';
}

/** A cell's traffic from the audit logs, per minute. */
export interface CellRate {
  readonly requests: number;
  readonly false404s: number;
}

/** "server|group/version/resource" → requests and false 404s per minute (scaled from the window the core counted). */
export function cellRates(rates: ClusterGvrRates): Map<string, CellRate> {
  const perMinute = (n: number) => (rates.seconds > 0 ? Math.round((n * 60) / rates.seconds) : 0);
  return new Map(
    rates.cells.map((c) => [
      cellKey(c.server, c),
      { requests: perMinute(c.requests), false404s: c.false404s > 0 ? Math.max(1, perMinute(c.false404s)) : 0 },
    ]),
  );
}

export function cellKey(server: string, gvr: { group: string; version: string; resource: string }): string {
  return `${server}|${gvr.group}/${gvr.version}/${gvr.resource}`;
}

export function rateText(rate: CellRate): string {
  return `${rate.requests}/min${rate.false404s ? ` · ${rate.false404s} false 404/min` : ''}`;
}

export type Item =
  | { kind: 'section'; key: string; label: string; count: number }
  | { kind: 'group'; key: string; group: string; count: number }
  | { kind: 'row'; key: string; row: RouteTableRow; skewed: boolean };

/** Sections (skewed, then served everywhere), each grouped by API group, filtered by kind and text. */
export function matrixItems(view: RouteTableView, filter: MatrixFilter, search: string): { items: Item[]; shown: number } {
  const known = view.columns.filter((c) => c.discovery !== 'none').length;
  const needle = search.trim().toLowerCase();
  const matches = (r: RouteTableRow) => !needle || `${r.group || 'core'}/${r.version}/${r.resource}`.toLowerCase().includes(needle);
  const skewed: RouteTableRow[] = [];
  const uniform: RouteTableRow[] = [];
  for (const r of view.rows) {
    if (!matches(r)) continue;
    (r.servers.length < known ? skewed : uniform).push(r);
  }
  const items: Item[] = [];
  const section = (id: string, label: string, rows: RouteTableRow[], isSkewed: boolean) => {
    if (rows.length === 0) return;
    items.push({ kind: 'section', key: `s:${id}`, label, count: rows.length });
    const perGroup = new Map<string, number>();
    for (const r of rows) perGroup.set(r.group, (perGroup.get(r.group) ?? 0) + 1);
    let current: string | undefined;
    for (const r of rows) {
      if (r.group !== current) {
        current = r.group;
        items.push({ kind: 'group', key: `g:${id}:${r.group}`, group: r.group, count: perGroup.get(r.group) ?? 0 });
      }
      items.push({ kind: 'row', key: `r:${r.group}/${r.version}/${r.resource}`, row: r, skewed: isSkewed });
    }
  };
  if (filter !== 'uniform') section('skewed', 'Skewed — served by some apiservers only', skewed, true);
  if (filter !== 'skewed') section('uniform', 'Served by every apiserver', uniform, false);
  const shown = (filter !== 'uniform' ? skewed.length : 0) + (filter !== 'skewed' ? uniform.length : 0);
  return { items, shown };
}
