// What the core knows of each apiserver, as any host may see it (no credentials).
import { z } from 'zod';

export const peerHealthSchema = z.enum(['unknown', 'ready', 'not-ready', 'draining', 'unreachable']);
export type PeerHealth = z.infer<typeof peerHealthSchema>;

export const peerStatusSchema = z.object({
  name: z.string(),
  url: z.string(),
  /** How the server was found. */
  source: z.enum(['flag', 'kubeconfig', 'lease', 'endpoints', 'sim']),
  health: peerHealthSchema,
  /** The failing /readyz checks when not ready. */
  failingChecks: z.array(z.string()),
  gitVersion: z.string().optional(),
  latencyMs: z.number().optional(),
  lastProbeAt: z.number().optional(),
  lastError: z.string().optional(),
  discovery: z.object({
    /** ok: current; stale: the last read failed, the previous document is kept; none: never read. */
    state: z.enum(['ok', 'stale', 'none']),
    source: z.enum(['aggregated-v2', 'aggregated-v2beta1', 'legacy']).optional(),
    fetchedAt: z.number().optional(),
    changedAt: z.number().optional(),
    gvrCount: z.number().int(),
    error: z.string().optional(),
  }),
});
export type PeerStatus = z.infer<typeof peerStatusSchema>;

/** One point of a server's health series, for charts over the rollout. */
export const healthSampleSchema = z.object({
  at: z.number(),
  health: peerHealthSchema,
  latencyMs: z.number().optional(),
  gitVersion: z.string().optional(),
});
export type HealthSample = z.infer<typeof healthSampleSchema>;
