// What a real apiserver's own /metrics says about the requests it answered: request and error counts
// per GVR and verb (apiserver_request_total) and the deprecated APIs someone requested
// (apiserver_requested_deprecated_apis). Read from the same scrape as its own peer-proxy counters.
// A count that was not read is null, never 0.
import { z } from 'zod';

/**
 * apiserver_request_total for one GVR (and subresource) and verb, summed over its other labels
 * (code, scope, component, dry_run). kube-apiserver counts only what it routed to a handler: a
 * request for a GVR it does not serve (a false 404 in a mixed-version cluster) is not counted here,
 * only in its audit log.
 */
export const requestSeriesSchema = z.object({
  /** '' for the core group; group, version and resource all '' for a non-resource path. */
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  subresource: z.string(),
  verb: z.string(),
  requests: z.number(),
  /** Answered 5xx. */
  serverErrors: z.number(),
  /** Answered 404 (a real 404: the object was not there). */
  notFound: z.number(),
  /** Per second since the previous read of the server; null after a single read or a counter reset. */
  requestRate: z.number().nullable(),
  serverErrorRate: z.number().nullable(),
  notFoundRate: z.number().nullable(),
});
export type RequestSeries = z.infer<typeof requestSeriesSchema>;

/** One series of apiserver_requested_deprecated_apis: a deprecated API someone requested since the server started. */
export const deprecatedApiSchema = z.object({
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  subresource: z.string(),
  /** The release that removes it ('' when none is planned). */
  removedRelease: z.string(),
});
export type DeprecatedApi = z.infer<typeof deprecatedApiSchema>;

/**
 * read: the counts are the server's (null, with error saying so, when its /metrics has no
 * apiserver_request_total: not a kube-apiserver); forbidden: RBAC refused GET /metrics; unreadable:
 * the read or the parse failed (error says how); not-read: not asked yet, or the server is not ready.
 */
export const serverMetricsSchema = z.object({
  state: z.enum(['read', 'forbidden', 'unreadable', 'not-read']),
  readAt: z.number().optional(),
  /** The read the rates are measured from. */
  previousReadAt: z.number().optional(),
  error: z.string().optional(),
  /** Every GVR and verb the server counted, most requested first; null unless read. */
  requests: z.array(requestSeriesSchema).nullable(),
  requestsTotal: z.number().nullable(),
  serverErrorsTotal: z.number().nullable(),
  notFoundTotal: z.number().nullable(),
  /** [] when read and nobody requested a deprecated API; null unless read. */
  deprecatedApis: z.array(deprecatedApiSchema).nullable(),
});
export type ServerMetrics = z.infer<typeof serverMetricsSchema>;
