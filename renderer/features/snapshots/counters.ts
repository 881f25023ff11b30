// The snapshot's counters as rows: requests per GVR by outcome, busiest first.
import type { RoutingSnapshot } from '../../../proxy-core/contract/index.js';

export const COUNTER_COLUMNS = ['local', 'rerouted', 'notfound', 'unavailable'] as const;
export const COUNTERS_SHOWN = 10;

/** Requests per GVR by outcome, busiest first. */
export function counterRows(
  s: RoutingSnapshot,
): { gvr: string; total: number; local: number; rerouted: number; notfound: number; unavailable: number; other: number }[] {
  const byGvr = new Map<
    string,
    { gvr: string; total: number; local: number; rerouted: number; notfound: number; unavailable: number; other: number }
  >();
  for (const c of s.counters) {
    let row = byGvr.get(c.gvr);
    if (!row) byGvr.set(c.gvr, (row = { gvr: c.gvr, total: 0, local: 0, rerouted: 0, notfound: 0, unavailable: 0, other: 0 }));
    row.total += c.count;
    if ((COUNTER_COLUMNS as readonly string[]).includes(c.outcome)) row[c.outcome as (typeof COUNTER_COLUMNS)[number]] += c.count;
    else row.other += c.count;
  }
  return [...byGvr.values()].sort((a, b) => b.total - a.total || a.gvr.localeCompare(b.gvr));
}
