// What Peerscope can tell from outside about an apiserver's own Mixed Version Proxy (KEP-4020,
// beta and on by default since v1.36), and what that proxy reports having rerouted.
import { z } from 'zod';

/** One series of a server's own peer-proxy counters, as its /metrics gives it. */
export const ownProxySeriesSchema = z.object({
  labels: z.record(z.string(), z.string()),
  value: z.number(),
});
export type OwnProxySeries = z.infer<typeof ownProxySeriesSchema>;

/**
 * The server's own /metrics, for its peer-proxy counters.
 * exposed: read; the counters are listed (a counter with no series yet counts nothing so far).
 * not-exposed: read, but the server has no peer proxy to count with (its own MVP is off, or its
 *   release has none): never shown as zero.
 * forbidden: RBAC refused the read (the credentials may not GET /metrics).
 * unreadable: the read failed (the error says how).
 * not-read: not asked yet, or the server is not ready.
 * The totals are null unless exposed: a count that was not read is never 0.
 */
export const ownProxyMetricsSchema = z.object({
  state: z.enum(['exposed', 'not-exposed', 'forbidden', 'unreadable', 'not-read']),
  readAt: z.number().optional(),
  error: z.string().optional(),
  /** apiserver_rerouted_request_total{code,group,version,resource}. */
  rerouted: z.array(ownProxySeriesSchema),
  reroutedTotal: z.number().nullable(),
  /** apiserver_peer_proxy_errors_total{type,group,version,resource}. */
  proxyErrors: z.array(ownProxySeriesSchema),
  proxyErrorsTotal: z.number().nullable(),
  /** apiserver_peer_discovery_sync_errors_total{type}. */
  discoverySyncErrors: z.array(ownProxySeriesSchema),
  discoverySyncErrorsTotal: z.number().nullable(),
});
export type OwnProxyMetrics = z.infer<typeof ownProxyMetricsSchema>;

const tristate = z.enum(['yes', 'no', 'unknown']);

export const ownMvpSchema = z.object({
  /** on: the server proxies requests it cannot serve to a peer itself; off: it does not; unknown: nothing says. */
  verdict: z.enum(['on', 'off', 'unknown']),
  /** The verdict in plain words, naming the server and the cause. */
  summary: z.string(),
  /** The UnknownVersionInteroperabilityProxy feature gate (its peer-endpoint reconciler runs). */
  featureGate: tristate,
  /** --peer-ca-file is set: without it the gate alone proxies nothing (kubeadm does not set it). */
  peerCaFile: tristate,
  /** The address its identity lease advertises to peers (kubernetes.io/peer-advertise-address). */
  advertisedAddress: z.string().optional(),
  /** /apis answers the peer-aggregated document unless the client asks profile=nopeer. */
  peerAggregatedDiscovery: tristate,
  /** How the verdict was reached (the readiness checks seen, the lease annotation). */
  evidence: z.array(z.string()),
  metrics: ownProxyMetricsSchema,
  /** Beside it, Peerscope's own routing: requests the port rerouted away from this server (it was the handling server) and to it. */
  peerscope: z.object({ reroutedAway: z.number(), reroutedHere: z.number() }).optional(),
});
export type OwnMvp = z.infer<typeof ownMvpSchema>;
