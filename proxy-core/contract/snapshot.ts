// The routing snapshot: a file operators keep for years (attached to change tickets, compared
// across upgrade steps), so its format is a contract. This schema is its single source of truth;
// docs/snapshot.schema.json is generated from it (npm run schema:snapshot).
import { z } from 'zod';
import { routeOutcomeSchema, routingEventSchema } from './events.js';
import { peerStatusSchema } from './peers.js';

export const SNAPSHOT_API_GROUP = 'peerscope.dev';
export const SNAPSHOT_VERSION = 'v1';
export const SNAPSHOT_API_VERSION = `${SNAPSHOT_API_GROUP}/${SNAPSHOT_VERSION}` as const;
export const SNAPSHOT_KIND = 'RoutingSnapshot';

/** "group/version/resource", core group empty: "/v1/pods". */
const gvrKey = z.string().regex(/^[^/]*\/[^/]+\/[^/]+$/, 'a GVR is "group/version/resource"');

/** A server as it was at capture time: its public status, and its own discovery as GVR lists. */
export const snapshotServerSchema = peerStatusSchema.pick({ name: true, url: true, source: true, health: true, failingChecks: true, gitVersion: true, latencyMs: true }).extend({
  name: z.string().min(1),
  discovery: z.object({
    state: z.enum(['ok', 'stale', 'none']),
    source: z.enum(['aggregated-v2', 'aggregated-v2beta1', 'legacy']).optional(),
    changedAt: z.number().optional(),
    /** Every GVR the server's own discovery lists, sorted. */
    gvrs: z.array(gvrKey),
    /** The server's own /api and /apis documents, when the snapshot was taken with them. */
    documents: z.object({ api: z.unknown(), apis: z.unknown() }).optional(),
  }),
});

export const routingSnapshotSchema = z.object({
  apiVersion: z.literal(SNAPSHOT_API_VERSION),
  kind: z.literal(SNAPSHOT_KIND),
  /** ISO 8601 time the snapshot was taken. */
  takenAt: z.string().datetime({ offset: true }),
  /** What it was taken from; never credentials. */
  source: z.object({
    kind: z.enum(['sim', 'servers', 'kubeconfig']),
    context: z.string().optional(),
    cluster: z.string().optional(),
    peerscopeVersion: z.string(),
  }),
  settings: z.object({
    discoveryMode: z.enum(['peer-aggregated', 'nopeer']),
    policy: z.string(),
  }),
  servers: z.array(snapshotServerSchema),
  routeTable: z.object({
    rows: z.array(z.object({ gvr: gvrKey, servers: z.array(z.string()) })),
    /** GVRs served by some servers but not all. */
    skewed: z.array(gvrKey),
  }),
  counters: z.array(z.object({
    outcome: routeOutcomeSchema,
    gvr: z.string(),
    handling: z.string(),
    answeredBy: z.string(),
    count: z.number().int().nonnegative(),
  })),
  /** The most recent routing events, oldest first. */
  events: z.array(routingEventSchema),
});

export type RoutingSnapshot = z.infer<typeof routingSnapshotSchema>;
export type SnapshotServer = z.infer<typeof snapshotServerSchema>;

/** What changed between two snapshots (before → after). */
export interface SnapshotDiff {
  readonly servers: {
    readonly added: string[];
    readonly removed: string[];
    readonly upgraded: { name: string; from: string; to: string }[];
    readonly healthChanged: { name: string; from: string; to: string }[];
  };
  /** Per server present in both: GVRs its own discovery gained and lost. */
  readonly gvrs: { server: string; gained: string[]; lost: string[] }[];
  readonly skew: { readonly became: string[]; readonly resolved: string[] };
  /** Per GVR whose outcome shares changed: fraction of requests (0..1) before and after. */
  readonly outcomeRates: { gvr: string; outcome: 'notfound' | 'unavailable' | 'rerouted'; before: number; after: number; requestsBefore: number; requestsAfter: number }[];
}
