// A window's events read in pages, in time order, for a replay: a page is at most `limit` events
// after a cursor (the time and row of the last one read), so a long window streams in bounded chunks.
// The events table has no index on time (schema.ts: it would cost bytes on every event); the blocks
// table says which rows each flush wrote and the times they span, so a page plans first which blocks
// can hold its events and then sorts only their rows.

/** Where a page ended: the last event's time (epoch ms) and row; the next page starts after it. */
export interface PageCursor {
  readonly at: number;
  readonly row: number;
}

/**
 * The blocks a page reads: those overlapping [start, to) taken in order of their earliest time until
 * they hold `limit` rows, and every block that begins at or before `start` (so a page always moves
 * on). `end` is where the first block left out begins: every event before it is in a block taken.
 * Params: ?1 start, ?2 to (relative ms), ?3 limit.
 */
export const PAGE_BLOCKS_SQL = `
WITH c AS (
  SELECT first, last, min_t,
    sum(last - first + 1) OVER (ORDER BY min_t, first ROWS UNBOUNDED PRECEDING) - (last - first + 1) AS before
  FROM blocks WHERE max_t >= ?1 AND min_t < ?2
)
SELECT (SELECT json_group_array(json_array(first, last)) FROM c WHERE before < ?3 OR min_t <= ?1) AS blocks,
  (SELECT min(min_t) FROM c WHERE before >= ?3 AND min_t > ?1) AS page_end`;

/**
 * The events of the planned blocks in [start, end), after the cursor's row at `start`, oldest first.
 * Params: ?1 the blocks as JSON [[first, last], …], ?2 start, ?3 end, ?4 the cursor's row (0: none), ?5 limit.
 */
export const PAGE_EVENTS_SQL = `
SELECT json_group_array(json_array(row, t, series, ns, latency)) FROM (
  SELECT e.rowid row, e.t t, e.series series, e.ns ns, e.latency latency
  FROM json_each(?1) b JOIN events e ON e.rowid BETWEEN b.value ->> 0 AND b.value ->> 1
  WHERE e.t >= ?2 AND e.t < ?3 AND (e.t > ?2 OR e.rowid > ?4)
  ORDER BY e.t, e.rowid LIMIT ?5
)`;
