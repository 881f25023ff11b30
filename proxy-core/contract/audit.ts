// What the apiservers themselves answered, read from their audit logs: the counts `peerscope audit`
// prints as JSON and a host may show. Plain data: no request or response bodies, no user.extra, no
// query strings, no credentials. A count that was not read or not judged is null, never 0.
import { z } from 'zod';
import type { RouteOutcome } from './events.js';

/**
 * How an audited request went, judged against the servers' discovery. The port's own outcome names
 * where they mean the same; `false-404` is the server's alone: it lacked the GVR while a peer served
 * it and answered 404 (its own Mixed Version Proxy was off, or had not synced). The port never
 * produces one, so it is not a RouteOutcome.
 */
export const auditOutcomes = [
  'local',
  'false-404',
  'rerouted',
  'unavailable',
  'notfound',
  'non-resource',
  'rejected',
  'undetermined',
] as const satisfies readonly (RouteOutcome | 'false-404' | 'undetermined')[];
export const auditOutcomeSchema = z.enum(auditOutcomes);
/**
 * `undetermined`: what was known at that moment does not decide the request — its server is none of
 * the judged ones, or its own or a peer's discovery is unknown (a server being upgraded is exactly
 * the one whose discovery cannot be read), or it answered what no known discovery lists. It is never
 * counted as local, not found or a false 404.
 */
export type AuditOutcome = z.infer<typeof auditOutcomeSchema>;

/** Why a request is undetermined. */
export const undeterminedReasons = ['server-unknown', 'discovery-unread', 'discovery-stale'] as const;
export const undeterminedReasonSchema = z.enum(undeterminedReasons);
export type UndeterminedReason = z.infer<typeof undeterminedReasonSchema>;

const count = z.number().int().nonnegative();

/** Requests of one row (a server, a client, a GVR, …). */
export const auditCountsSchema = z.object({
  requests: count,
  /** Per outcome, undetermined included (they add up to requests); null when nothing could be judged (no discovery to judge by). */
  outcomes: z.record(auditOutcomeSchema, count).nullable(),
  /** Requests whose outcome was not decided: undetermined, or nothing to judge by. */
  unjudged: count,
  /** Per HTTP status code ("200", "404", …; "none" when the event had no responseStatus). */
  codes: z.record(z.string(), count),
});
export type AuditCounts = z.infer<typeof auditCountsSchema>;

/** A GVR as the audit event's objectRef names it; core group "". */
export const auditGvrSchema = z.object({ group: z.string(), version: z.string(), resource: z.string() });

/**
 * A client's requests for a deprecated API, as the server marked them (audit annotations
 * `k8s.io/deprecated` and `k8s.io/removed-release`): who called what, and the release that removes it.
 */
export const auditDeprecatedCallSchema = z.object({
  userAgent: z.string(),
  user: z.string(),
  gvr: auditGvrSchema,
  /** "<major>.<minor>" the server named; '' when no removal is planned. */
  removedRelease: z.string(),
  /** The servers that answered the calls. */
  servers: z.array(z.string()),
  count,
  /** ISO 8601 times of the first and last call. */
  first: z.string(),
  last: z.string(),
});
export type AuditDeprecatedCall = z.infer<typeof auditDeprecatedCallSchema>;

/** One input: a file (with its rotated predecessors) or standard input, and how it was read. */
export const auditInputSchema = z.object({
  server: z.string(),
  /** The file as given; "-" is standard input. */
  file: z.string(),
  /** The files read for it, oldest first (rotated ones before the live one). */
  files: z.array(z.string()),
  lines: count,
  /** Audit events read (every stage). */
  events: count,
  problems: count,
  /** Set when the input could not be opened or ended in error; what was read before still counts. */
  error: z.string().optional(),
});

/** What the events were judged against. */
export const auditJudgeSchema = z.object({
  /** none: nothing to judge by, every outcome is null; servers: read live; snapshot: a routing snapshot file. */
  kind: z.enum(['none', 'servers', 'kubeconfig', 'snapshot']),
  /** The snapshot file, or the kubeconfig context. */
  from: z.string().optional(),
  /** When the discovery was read (ISO 8601): now for live servers, the snapshot's takenAt. */
  at: z.string().optional(),
  servers: z.array(
    z.object({
      name: z.string(),
      /** The host name its identity lease gives, what the screens print it by; absent when it has none and in earlier reports. */
      hostname: z.string().optional(),
      /** Where it was reached (a bare --audit-log FILE is matched to it by its own requests' sourceIPs). */
      url: z.string().optional(),
      gitVersion: z.string().nullable(),
      /** GVRs its own discovery lists; null when it could not be read. */
      gvrs: count.nullable(),
      error: z.string().optional(),
    }),
  ),
});
export type AuditJudge = z.infer<typeof auditJudgeSchema>;

/** What an event was judged against: the release its server ran then (from the timeline), or today's discovery. */
export const judgedBySchema = z.enum(['timeline', 'today']);

export const AUDIT_REPORT_KIND = 'AuditReport';

export const auditReportSchema = z.object({
  apiVersion: z.literal('peerscope.dev/v1'),
  kind: z.literal(AUDIT_REPORT_KIND),
  judgedAgainst: auditJudgeSchema,
  /** False when the read was cancelled (Ctrl-C) before every input ended. */
  complete: z.boolean(),
  inputs: z.array(auditInputSchema),
  /** Events per stage, before deduplication. */
  stages: z.record(z.string(), count),
  /** ResponseComplete/Panic events of a request already counted (same server and auditID). */
  duplicates: count,
  /** Requests judged by the release their server ran then (timeline), and by today's discovery (today). */
  judgedBy: z.object({ timeline: count, today: count }).optional(),
  totals: auditCountsSchema,
  /** The undetermined requests by reason; absent in reports of earlier versions. */
  undetermined: z.record(undeterminedReasonSchema, count).optional(),
  /**
   * Servers whose discovery could not be read now, judged instead by their last known discovery: the
   * catalog's release of the minor their own requests in the log named (`log`), or their /version
   * read now (`version`). Absent in reports of earlier versions.
   */
  standIns: z.array(z.object({ server: z.string(), release: z.string(), from: z.enum(['log', 'version']), requests: count })).optional(),
  perServer: z.array(auditCountsSchema.extend({ server: z.string() })),
  /** Per client: user agent and user name as the server recorded them. */
  perClient: z.array(auditCountsSchema.extend({ userAgent: z.string(), user: z.string() })),
  perGvr: z.array(auditCountsSchema.extend({ gvr: auditGvrSchema })),
  /**
   * Every (client, server, GVR) that got a false 404, most first; null when nothing was judged (no
   * discovery to judge by, or every request undetermined): then "none" cannot be said.
   */
  false404s: z
    .array(
      z.object({
        userAgent: z.string(),
        user: z.string(),
        server: z.string(),
        gvr: auditGvrSchema,
        /** The servers whose discovery lists the GVR (of the release it was judged by). */
        servedBy: z.array(z.string()),
        /**
         * timeline: judged against the release the server ran then (its own requests in the log name it),
         * which was not today's; today: against today's discovery. Absent in reports of earlier versions.
         */
        judgedBy: judgedBySchema.optional(),
        count,
        first: z.string(),
        last: z.string(),
      }),
    )
    .nullable(),
  /** Every (client, deprecated GVR) the servers marked, soonest removal first; absent in reports of earlier Peerscope versions. */
  deprecatedCalls: z.array(auditDeprecatedCallSchema).optional(),
  /** Lines that could not be used, "file:line: why"; the first ones only (problemCount has them all). */
  problems: z.array(z.string()),
  problemCount: count,
});
export type AuditReport = z.infer<typeof auditReportSchema>;
