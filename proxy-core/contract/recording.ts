// The session's recording as the screens read it back: the timeline a time control draws (the span,
// each server's health and release changes) and the state at a moment — the servers and the route
// table as they were then, in the shapes the live calls answer, so the screens render them unchanged.
import { z } from 'zod';
import { routeTableViewSchema } from './route-table.js';
import { healthSampleSchema, serverStatusSchema } from './servers.js';
import { discoveryModeSchema } from './settings.js';

export const recordedChangeSchema = z.object({
  /** Epoch ms. */
  at: z.number(),
  kind: z.enum(['health', 'release']),
  value: z.string(),
});
export type RecordedChange = z.infer<typeof recordedChangeSchema>;

export const recordingTimelineSchema = z.object({
  file: z.string(),
  /** Epoch ms the session started, and of the last thing recorded. */
  startedAt: z.number(),
  endedAt: z.number(),
  /** The servers in the order first recorded, each with its changes, oldest first. */
  servers: z.array(z.object({ name: z.string(), changes: z.array(recordedChangeSchema) })),
  /** True for a recording opened from a file: nothing is written to it any more. */
  ended: z.boolean().optional(),
});
export type RecordingTimeline = z.infer<typeof recordingTimelineSchema>;

export const getStateAtArgsSchema = z.object({ at: z.number() });
export type GetStateAtArgs = z.infer<typeof getStateAtArgsSchema>;

export const recordedStateSchema = z.object({
  at: z.number(),
  /** The servers recorded by then: health, release and discovery as last recorded (what was not recorded is absent). */
  servers: z.array(serverStatusSchema),
  routeTable: routeTableViewSchema,
  /** The port's handling policy and discovery mode then, where the recording has them. */
  settings: z.object({ policy: z.string().optional(), discoveryMode: discoveryModeSchema.optional() }),
  /** Each server's health changes up to the moment, as samples. */
  history: z.array(z.object({ name: z.string(), samples: z.array(healthSampleSchema) })),
});
export type RecordedState = z.infer<typeof recordedStateSchema>;
