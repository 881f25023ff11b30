// What the core knows of each apiserver, as any host may see it (no credentials).
import { z } from 'zod';
import { ownMvpSchema } from './own-mvp.js';
import { serverMetricsSchema } from './server-metrics.js';

/**
 * gone: the server left the cluster (its identity lease expired and its address left the
 * default/kubernetes endpoints, or its address left them); it is no longer probed, never handles or
 * answers a request, and is removed from the list after `gone.removeAt`.
 */
export const healthStateSchema = z.enum(['unknown', 'ready', 'not-ready', 'draining', 'unreachable', 'gone']);
export type HealthState = z.infer<typeof healthStateSchema>;

/**
 * Why a server is unreachable: the network (timeout, refused, no route, DNS, reset) or its certificate
 * (signed by a CA the kubeconfig does not trust, not naming the address, expired).
 */
export const unreachableCauseSchema = z.enum([
  'timeout',
  'refused',
  'no-route',
  'dns',
  'reset',
  'tls-unknown-authority',
  'tls-name-mismatch',
  'tls-expired',
  'other',
]);
export type UnreachableCause = z.infer<typeof unreachableCauseSchema>;

export const serverStatusSchema = z.object({
  /** The server's identity: the key of routing, route tables, X-Peerscope-Route, snapshots and metrics. */
  name: z.string(),
  /**
   * What a person reads: the host name of its identity lease, else `name`; unique across the servers
   * (a short piece of the lease name beside a host name two servers share). Absent in snapshots of
   * earlier Peerscope versions: `shownName` then falls back to `name`.
   */
  displayName: z.string().optional(),
  url: z.string(),
  /** How the server was found. */
  source: z.enum(['flag', 'kubeconfig', 'lease', 'endpoints', 'sim']),
  health: healthStateSchema,
  /** The failing /readyz checks when not ready. */
  failingChecks: z.array(z.string()),
  gitVersion: z.string().optional(),
  latencyMs: z.number().optional(),
  lastProbeAt: z.number().optional(),
  lastError: z.string().optional(),
  /** Set while health is unreachable: what failed, sorted by cause, in a few words ("certificate signed by unknown authority"). */
  unreachable: z.object({ cause: unreachableCauseSchema, words: z.string() }).optional(),
  /** The proxy its connections go through (kubeconfig proxy-url or HTTPS_PROXY), credentials removed. */
  proxy: z.string().optional(),
  /** Set while health is gone: since when, why, and when it leaves the list. */
  gone: z.object({ at: z.number(), reason: z.string(), removeAt: z.number() }).optional(),
  discovery: z.object({
    /** ok: current; stale: the last read failed, the previous document is kept; none: never read. */
    state: z.enum(['ok', 'stale', 'none']),
    source: z.enum(['aggregated-v2', 'aggregated-v2beta1', 'legacy']).optional(),
    fetchedAt: z.number().optional(),
    changedAt: z.number().optional(),
    gvrCount: z.number().int(),
    error: z.string().optional(),
  }),
  /** The server's own Mixed Version Proxy, as far as Peerscope can tell from outside (own-mvp.ts). */
  ownMvp: ownMvpSchema.optional(),
  /** What a real kube-apiserver's own /metrics counts of the requests it answered; absent for a simulated server. */
  apiserverMetrics: serverMetricsSchema.optional(),
});
export type ServerStatus = z.infer<typeof serverStatusSchema>;

/** The name a person reads for a server: its display name, or its identity where none was recorded. */
export function shownName(server: { readonly name: string; readonly displayName?: string | undefined }): string {
  return server.displayName ?? server.name;
}

/**
 * How a message (a Status, a log line) names a server: its display name, quoted, with its identity
 * beside it when they differ (the identity is what X-Peerscope-Route, metrics and snapshots key on):
 * `"cp-1" (apiserver-fa6myrjs6maza5o5onsvobwkha)`, or `"B"`.
 */
export function serverLabel(name: string, displayName?: string): string {
  return displayName !== undefined && displayName !== name ? `"${displayName}" (${name})` : `"${name}"`;
}

/** One point of a server's health series, for charts over the rollout. */
export const healthSampleSchema = z.object({
  at: z.number(),
  health: healthStateSchema,
  latencyMs: z.number().optional(),
  gitVersion: z.string().optional(),
});
export type HealthSample = z.infer<typeof healthSampleSchema>;
