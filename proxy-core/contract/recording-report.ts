// The rollout report of a recording over a window (the post-mortem), as `peerscope recording report
// -o json` prints it and the app may read it: the one definition of its shape, from which
// docs/recording-report.schema.json is generated (npm run schema:snapshot). Times are epoch ms.
import { z } from 'zod';
import { impactClientSchema } from './impact.js';

export const RECORDING_REPORT_KIND = 'RecordingReport';

export const recordingInfoSchema = z.object({
  file: z.string(),
  host: z.string(),
  peerscopeVersion: z.string(),
  /** The session's start, and the last thing it recorded. */
  startedAt: z.number(),
  endedAt: z.number(),
  events: z.number().int().nonnegative(),
});
export type RecordingInfo = z.infer<typeof recordingInfoSchema>;

export const serverChangeKinds = ['health', 'release', 'membership', 'discovery-state', 'registration'] as const;

export const serverTimelineSchema = z.object({
  /** The server's identity (its lease name on a real cluster): what incidents, false 404s and reroutes name it by. */
  server: z.string(),
  /**
   * What a person reads for it: its host name as last recorded by the window's end (ServerStatus.displayName).
   * Absent when the recording holds none (written before display names were recorded): show `server`.
   */
  displayName: z.string().optional(),
  /** Oldest first; the first entry of each kind is the state as the window opened. */
  changes: z.array(z.object({ at: z.number(), kind: z.enum(serverChangeKinds), value: z.string() })),
});
export type ServerTimeline = z.infer<typeof serverTimelineSchema>;

export const incidentKinds = ['unreachable', 'not-ready', 'gone', 'discovery-stale', 'registration-missing', 'peer-503'] as const;
export type IncidentKind = (typeof incidentKinds)[number];

export const incidentSchema = z.object({
  server: z.string(),
  /**
   * unreachable / not-ready / gone / discovery-stale (its discovery read failed, the last document kept) /
   * registration-missing (group/versions its legacy /apis lacks): spans of the timeline; peer-503:
   * minutes in which the port answered 503 for requests the server handled.
   */
  kind: z.enum(incidentKinds),
  from: z.number(),
  /** Null: still so when the window ends. */
  to: z.number().nullable(),
  /** peer-503: how many requests were answered 503 in the span. */
  count: z.number().int().nonnegative().optional(),
  /** registration-missing: the group/versions missing, comma-joined. */
  detail: z.string().optional(),
});
export type Incident = z.infer<typeof incidentSchema>;

export const rolloutStepSchema = z.object({
  at: z.number(),
  /** The server the step is about ('' when it is about the whole rollout). */
  subject: z.string(),
  /** One line: what the step did. */
  value: z.string(),
});
export type RolloutStep = z.infer<typeof rolloutStepSchema>;

export const false404MinuteSchema = z.object({
  /** Start of the minute. */
  minute: z.number(),
  /** The user agent ('' when the client sent none). */
  client: z.string(),
  /** From the cluster source: the user the server authenticated ('' when not known). */
  user: z.string(),
  server: z.string(),
  gvr: z.string(),
  count: z.number().int().positive(),
});
export type False404Minute = z.infer<typeof false404MinuteSchema>;

export const outcomeMinuteSchema = z.object({
  minute: z.number(),
  /** Who counted them (port, audit-log, audit-webhook): a request through the port is in a server's audit log too. */
  source: z.string(),
  /** Requests by outcome in that minute. */
  outcomes: z.record(z.string(), z.number().int().nonnegative()),
});
export type OutcomeMinute = z.infer<typeof outcomeMinuteSchema>;

export const breakingClientSchema = z.object({
  client: impactClientSchema,
  /** Who saw the requests: the port, or the servers' audit logs / webhook. */
  source: z.enum(['port', 'cluster-audit']),
  /** "group/version/resource" (the core group as ''). */
  gvr: z.string(),
  requests: z.number().int().nonnegative(),
  message: z.string(),
});
export type BreakingClient = z.infer<typeof breakingClientSchema>;

export const recordingReportSchema = z.object({
  apiVersion: z.literal('peerscope.dev/v1'),
  kind: z.literal(RECORDING_REPORT_KIND),
  recording: recordingInfoSchema,
  /** The window reported; `to` exclusive. */
  from: z.number(),
  to: z.number(),
  servers: z.array(serverTimelineSchema),
  incidents: z.array(incidentSchema),
  steps: z.array(rolloutStepSchema),
  /** Requests by source (port, audit-log, audit-webhook), then outcome. */
  outcomes: z.record(z.string(), z.record(z.string(), z.number().int().nonnegative())),
  outcomesPerMinute: z.array(outcomeMinuteSchema),
  /** From the cluster source: a server answered 404 for what a peer serves. */
  false404s: z.array(false404MinuteSchema),
  /** The port's reroutes: handled by `from`, answered by `to`. */
  rerouted: z.array(z.object({ from: z.string(), to: z.string(), gvr: z.string(), count: z.number().int().positive() })),
  /**
   * The release the clients were judged against (`--to-release`, default the newest seen) and the
   * clients seen in the window that call what it does not serve; null target: no release to judge by.
   */
  target: z.object({ release: z.string(), gitVersion: z.string(), asked: z.string(), note: z.string().optional() }).nullable(),
  /** Why there is no target, when there is none. */
  targetProblem: z.string().optional(),
  breaking: z.array(breakingClientSchema),
});
export type RecordingReport = z.infer<typeof recordingReportSchema>;
