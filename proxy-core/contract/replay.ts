// Replay: the session's recording played back in the Live routing screen. The recorded events of a
// window come in pages, oldest first, in the shapes the live stream pushes (a request through the
// port as a RoutingEvent, one the apiservers answered as a ClusterEvent), so the screen draws them with
// its own table, chart and tallies. Only what the recording keeps is there: no object name (a path
// shows "…" where one was), no query, no header but the user agent, no body, no bytes, no credential.
import { z } from 'zod';
import { clusterEventSchema } from './cluster.js';
import { routingEventSchema } from './events.js';

/** Where a page ended (the last event's time and row); pass it as `after` for the next page. */
export const recordedCursorSchema = z.object({ at: z.number(), row: z.number().int().nonnegative() });
export type RecordedCursor = z.infer<typeof recordedCursorSchema>;

/** Events per page at most: a busy cluster records 5,000 a second, so a window is always read in pages. */
export const MAX_RECORDED_PAGE = 10_000;

export const getRecordedEventsArgsSchema = z
  .object({
    /** Epoch ms; `to` exclusive. */
    from: z.number(),
    to: z.number(),
    after: recordedCursorSchema.optional(),
    limit: z.number().int().min(1).max(MAX_RECORDED_PAGE),
  })
  .refine((a) => a.to > a.from, { message: '`to` must be after `from`', path: ['to'] });
export type GetRecordedEventsArgs = z.infer<typeof getRecordedEventsArgsSchema>;

export const recordedEventsPageSchema = z.object({
  /**
   * The page's requests through the port and those the apiservers answered, each oldest first (the
   * two together are the page's `limit` events at most). `seq` is the event's row in the recording:
   * unique, but in the order written, not the order in time.
   */
  port: z.array(routingEventSchema),
  cluster: z.array(clusterEventSchema),
  /** Every recorded event before this time (epoch ms) that the window holds has been answered by now. */
  through: z.number(),
  /** The next page's cursor; null when the window has no more. */
  next: recordedCursorSchema.nullable(),
});
export type RecordedEventsPage = z.infer<typeof recordedEventsPageSchema>;
