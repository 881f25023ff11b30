// The cluster source: one event per request an apiserver itself answered, read from its audit log as
// the core follows it, beside the port's own routing events (events.ts). On a real cluster most
// requests never pass the port; these are all of them. Plain data: no credentials, no bodies, no query
// strings, no user.extra (the audit reader drops them on read).
import { z } from 'zod';
import { auditDeprecatedCallSchema, auditOutcomes, judgedBySchema } from './audit.js';
import { requestShape } from './events.js';

/** Where a request was seen: through Peerscope's port, or in the apiservers' own audit logs. */
export const trafficSources = ['port', 'cluster'] as const;
export type TrafficSource = (typeof trafficSources)[number];

/** Which of the cluster's own sources a cluster event came from: a server's audit log file, or its audit webhook. */
export const clusterSources = ['audit-log', 'audit-webhook'] as const;
export const clusterSourceSchema = z.enum(clusterSources);
export type ClusterSource = z.infer<typeof clusterSourceSchema>;
/** Requests counted per source: an entry for each source read (a source not read has none, never 0). */
export const clusterBySourceSchema = z.object({
  'audit-log': z.number().int().nonnegative().optional(),
  'audit-webhook': z.number().int().nonnegative().optional(),
});

/** The audit outcome; `not-judged` when the server's discovery was not known yet as the event was read. */
export const clusterOutcomes = [...auditOutcomes, 'not-judged'] as const;
export const clusterOutcomeSchema = z.enum(clusterOutcomes);
export type ClusterOutcome = z.infer<typeof clusterOutcomeSchema>;

const count = z.number().int().nonnegative();

/** Requests by cluster outcome, one entry per outcome. */
export const clusterTotalsSchema = z.object(
  Object.fromEntries(clusterOutcomes.map((o) => [o, count])) as Record<ClusterOutcome, typeof count>,
);
export type ClusterTotals = Record<ClusterOutcome, number>;

export function emptyClusterTotals(): ClusterTotals {
  return Object.fromEntries(clusterOutcomes.map((o) => [o, 0])) as ClusterTotals;
}

export const clusterEventSchema = z.object({
  seq: z.number().int().nonnegative(),
  /** Epoch milliseconds when the server received the request. */
  at: z.number(),
  /** The apiserver whose audit log recorded it: the one that handled it. */
  server: z.string(),
  userAgent: z.string(),
  /** The user the apiserver authenticated (its name only). */
  user: z.string(),
  ...requestShape,
  outcome: clusterOutcomeSchema,
  /** The code the server answered; null when its event had none. */
  code: z.number().int().nullable(),
  /** From receipt to the event's stage (a watch: its whole life). */
  latencyMs: z.number().nonnegative(),
  /** Where it was read; absent in snapshots of earlier Peerscope versions. */
  via: clusterSourceSchema.optional(),
  /** Judged against the release its server ran then (timeline) or today's discovery (today); absent when not judged or in earlier versions. */
  judgedBy: judgedBySchema.optional(),
  /** The server marked the request as one for a deprecated API (audit annotation k8s.io/deprecated); removedRelease '' when no removal is planned. */
  deprecated: z.object({ removedRelease: z.string() }).optional(),
});
export type ClusterEvent = z.infer<typeof clusterEventSchema>;

/**
 * How the core's read of audit log files goes: a read once (a log of the past, the desktop app's
 * "Open audit log…") has an end and a progress bar; a follow reads what is there, then each line as it
 * is written, and has no end to measure.
 */
export const auditReadSchema = z.object({
  /** The files as given (each with its server). */
  files: z.array(z.object({ server: z.string(), file: z.string() })),
  follow: z.boolean(),
  /**
   * reading: the files' content as it was when the read began is being read (a read once, or a follow
   * catching up); following: caught up, only what is appended; done: a read once ended; cancelled:
   * stopped by cancelAuditRead.
   */
  state: z.enum(['reading', 'following', 'done', 'cancelled']),
  /** Bytes read from disk (compressed bytes of a .gz), as of the reader's last report (every 1,024 lines and at the end). */
  bytesRead: count,
  /** What the files held when the read began (a follow's catching up is measured against it too); null with standard input. */
  bytesTotal: count.nullable(),
  lines: count,
  requests: count,
});
export type AuditRead = z.infer<typeof auditReadSchema>;

/** One piece of audit input the core could not use: where it is and what kind of fault, never a piece of it. */
export const auditProblemSchema = z.object({
  server: z.string(),
  source: clusterSourceSchema,
  /** A short fixed phrase ("not JSON", "not an audit event", "unreadable", …). */
  reason: z.string(),
  /** file:line (a followed log), or the batch and item (the webhook). */
  where: z.string(),
  detail: z.string(),
});
export type AuditProblem = z.infer<typeof auditProblemSchema>;
export const auditProblemsSummarySchema = z.object({ count, first: z.array(auditProblemSchema) });
export type AuditProblemsSummary = z.infer<typeof auditProblemsSummarySchema>;

/** What the core follows; in getOverview() only when it follows audit logs. */
export const clusterSummarySchema = z.object({
  /** The servers whose audit logs are followed. */
  servers: z.array(z.string()),
  totals: clusterTotalsSchema,
  lastSeq: count,
  /** Requests counted per source (audit-log, audit-webhook); absent before this Peerscope version. */
  bySource: clusterBySourceSchema.optional(),
  /** Who called a deprecated API and when it is removed, from the servers' audit annotations (soonest removal first). */
  deprecatedCalls: z.array(auditDeprecatedCallSchema).optional(),
  /** The read of audit log files, when the core reads any (absent with the webhook receiver alone). */
  read: auditReadSchema.optional(),
  /** Where the audit webhook receiver listens, when the core runs one. */
  webhook: z.object({ url: z.string() }).optional(),
  /** The input that could not be used (the first few named); absent before this Peerscope version. */
  problems: auditProblemsSummarySchema.optional(),
});
export type ClusterSummary = z.infer<typeof clusterSummarySchema>;

export const clusterEventsPageSchema = z.object({
  /** Oldest first. */
  events: z.array(clusterEventSchema),
  lastSeq: count,
});
export type ClusterEventsPage = z.infer<typeof clusterEventsPageSchema>;

/** One minute of what a server answered, from its audit log (only minutes with a request). */
export const clusterMinuteSchema = z.object({
  /** Start of the minute, epoch ms. */
  at: z.number(),
  requests: count,
  /** Answered 5xx. */
  errors: count,
  false404s: count,
});
export type ClusterMinute = z.infer<typeof clusterMinuteSchema>;

/** What each server answered for each GVR over the last minute, from the audit logs: the GVR matrix's cells. */
export const clusterGvrRatesSchema = z.object({
  /** Seconds the counts cover: 60, or fewer when the logs have been followed for less than a minute. */
  seconds: z.number().nonnegative(),
  /** Only (server, GVR) pairs with a request in the window. */
  cells: z.array(
    z.object({
      server: z.string(),
      group: z.string(),
      version: z.string(),
      resource: z.string(),
      requests: count,
      false404s: count,
    }),
  ),
});
export type ClusterGvrRates = z.infer<typeof clusterGvrRatesSchema>;

/** A batch of cluster events, pushed as routing batches are (at most ~10 a second). */
export const clusterBatchSchema = z.object({
  type: z.literal('cluster'),
  /** The most recent events of the window, oldest first; may be fewer than `count`. */
  events: z.array(clusterEventSchema),
  /** Every event of the window, by outcome. */
  counts: clusterTotalsSchema,
  count,
  windowMs: z.number().nonnegative(),
  lastSeq: count,
});
export type ClusterBatch = z.infer<typeof clusterBatchSchema>;
