// The session's recording read over a window (a span of it, not a moment): the upgrade-impact report
// the live Upgrade impact screen reads, judged the same way over the clients the recording counted in
// the window, and who got false 404s in it. Both read the recording's per-minute rollups.
import { z } from 'zod';
import { getImpactReportArgsSchema } from './impact.js';

/** Epoch ms, `from` before `to` (exclusive). The rollups count whole minutes: those `from` and `to` fall in are included. */
export const recordingWindowSchema = z.object({ from: z.number(), to: z.number() });
export type RecordingWindow = z.infer<typeof recordingWindowSchema>;

export const getImpactForWindowArgsSchema = z.object({
  ...recordingWindowSchema.shape,
  /** As getImpactReport's: a release of the catalog; default: the newest release above every server's at the window's end. */
  target: getImpactReportArgsSchema.shape.to,
});
export type GetImpactForWindowArgs = z.infer<typeof getImpactForWindowArgsSchema>;

/** One client × server × GVR of the window's false 404s (from the cluster source: the servers' audit logs or webhook). */
export const windowFalse404RowSchema = z.object({
  userAgent: z.string(),
  /** The user the apiserver authenticated ('' when none was recorded). */
  user: z.string(),
  /** The server that answered 404. */
  server: z.string(),
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  count: z.number().int().nonnegative(),
  /** Epoch ms: the start of the first and of the latest minute with one. */
  first: z.number(),
  last: z.number(),
});
export type WindowFalse404Row = z.infer<typeof windowFalse404RowSchema>;

export const windowFalse404sSchema = z.object({
  from: z.number(),
  to: z.number(),
  /** Most first. */
  rows: z.array(windowFalse404RowSchema),
});
export type WindowFalse404s = z.infer<typeof windowFalse404sSchema>;
