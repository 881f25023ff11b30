// The app's recordings: the folder every session is recorded into, its retention cap, the past
// recordings in it, and opening one offline. Recordings are named by their file name in that folder
// only — the renderer never names a path, so no call reads a file the user did not give the app.
import { z } from 'zod';

/** A file name in the recordings folder: no folder part, no hidden file. */
export const recordingNameSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^/\\.][^/\\]*$/, 'a file name in the recordings folder');

export const retentionSchema = z.object({
  /** Recordings last written longer ago than this are removed. */
  maxAgeDays: z.number().positive().max(3650),
  /** The folder's recordings together stay at or under this. */
  maxBytes: z.number().int().positive(),
});
export type Retention = z.infer<typeof retentionSchema>;

export const pastRecordingSchema = z.object({
  name: z.string(),
  /** The file with its write-ahead log. */
  bytes: z.number().nonnegative(),
  /** Epoch ms. */
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  events: z.number().optional(),
  servers: z.array(z.string()).optional(),
  /** Every release the servers were seen at, in the order first seen. */
  releases: z.array(z.string()).optional(),
  /** Why the file cannot be read as a recording. */
  refused: z.string().optional(),
  /** The running session writes into it. */
  writing: z.boolean().optional(),
  /** It is the recording the app shows now. */
  open: z.boolean().optional(),
});
export type PastRecording = z.infer<typeof pastRecordingSchema>;

export const removedRecordingSchema = z.object({
  name: z.string(),
  bytes: z.number().nonnegative(),
  /** Epoch ms. */
  at: z.number(),
  reason: z.string(),
});

export const recordingsSchema = z.object({
  folder: z.string(),
  /** Bytes the folder's recordings take together. */
  usedBytes: z.number().nonnegative(),
  retention: retentionSchema,
  /** The settings file could not be used (named with the field); the defaults are in force. */
  settingsProblem: z.string().optional(),
  /** Newest first. */
  recordings: z.array(pastRecordingSchema),
  /** What the cap removed while the app ran, newest first. */
  removed: z.array(removedRecordingSchema),
  /** How a file from elsewhere is opened: the desktop app's dialog, or an upload in browser mode. */
  picker: z.enum(['dialog', 'upload']),
});
export type Recordings = z.infer<typeof recordingsSchema>;

export const recordingNameArgsSchema = z.object({ name: recordingNameSchema });

/** Where a browser-mode page uploads a recording file (raw bytes, its name in `x-peerscope-file-name`). */
export const RECORDING_UPLOAD_PATH = '/api/recordings/import';
