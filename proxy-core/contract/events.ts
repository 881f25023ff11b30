// Routing events: one per request through the local port. Plain data, safe to send to any host:
// no credentials, no query strings (they can carry secrets), no bodies.
import { z } from 'zod';

export const routeOutcomes = [
  'local',
  'rerouted',
  'notfound',
  'unavailable',
  'discovery-merged',
  'discovery-own',
  'non-resource',
  'rejected',
] as const;
export const routeOutcomeSchema = z.enum(routeOutcomes);
export type RouteOutcome = z.infer<typeof routeOutcomeSchema>;

/** What a request asked for, as both sources record it: the port's routing events and the cluster's (cluster.ts). */
export const requestShape = {
  verb: z.string(),
  /** The request path without its query. */
  path: z.string(),
  group: z.string(),
  version: z.string(),
  resource: z.string(),
  subresource: z.string(),
  namespace: z.string(),
};

export const routingEventSchema = z.object({
  seq: z.number().int().nonnegative(),
  /** Epoch milliseconds when the request arrived. */
  at: z.number(),
  userAgent: z.string(),
  method: z.string(),
  ...requestShape,
  /** The server a load balancer handed the request to; null when none could be (rejected, none ready). */
  handling: z.string().nullable(),
  /** The server that produced the response; null when Peerscope answered itself. */
  answeredBy: z.string().nullable(),
  outcome: routeOutcomeSchema,
  status: z.number().int(),
  latencyMs: z.number(),
  bytesIn: z.number().int().nonnegative(),
  bytesOut: z.number().int().nonnegative(),
  /** Why Peerscope answered an error itself, when it did. */
  error: z.string().optional(),
});
export type RoutingEvent = z.infer<typeof routingEventSchema>;
