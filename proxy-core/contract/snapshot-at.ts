// A routing snapshot of a recorded moment: taken from the session's recording (the app's moment view,
// `peerscope snapshot save --recording`) rather than from a running core. Such a snapshot says it was
// built from a recording and names each part the recording does not hold, left out rather than made up.
import { z } from 'zod';

export const takeSnapshotAtArgsSchema = z.object({
  /** The moment, epoch ms. */
  at: z.number(),
});
export type TakeSnapshotAtArgs = z.infer<typeof takeSnapshotAtArgsSchema>;

/** In a snapshot built from a recording: which recording, which moment, and what it leaves out. */
export const snapshotRecordedSchema = z.object({
  /** The recording's file name (no folder). */
  file: z.string(),
  /** ISO 8601: the moment (the snapshot's takenAt is the same). */
  at: z.string().datetime({ offset: true }),
  /** Each part of a snapshot the recording does not hold, and why: absent from the snapshot, not estimated. */
  omitted: z.array(z.object({ part: z.string(), reason: z.string() })),
});
export type SnapshotRecorded = z.infer<typeof snapshotRecordedSchema>;
