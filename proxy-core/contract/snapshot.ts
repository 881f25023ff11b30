// The routing snapshot: a file operators keep for years (attached to change tickets, compared
// across upgrade steps), so its format is a contract. This schema is its single source of truth;
// docs/snapshot.schema.json is generated from it (npm run schema:snapshot).
import { z } from 'zod';
import { auditDeprecatedCallSchema } from './audit.js';
import {
  clusterBySourceSchema,
  clusterEventSchema,
  clusterGvrRatesSchema,
  clusterMinuteSchema,
  clusterSourceSchema,
  clusterTotalsSchema,
} from './cluster.js';
import { routeOutcomeSchema, routingEventSchema } from './events.js';
import { clientUsageSchema, impactReportSchema } from './impact.js';
import { serverStatusSchema, shownName } from './servers.js';
import { discoveryModeSchema } from './settings.js';
import { mergedDiscoveryViewSchema } from './discovery-view.js';
import { snapshotRecordedSchema } from './snapshot-at.js';

export const SNAPSHOT_API_GROUP = 'peerscope.dev';
export const SNAPSHOT_VERSION = 'v1';
export const SNAPSHOT_API_VERSION = `${SNAPSHOT_API_GROUP}/${SNAPSHOT_VERSION}` as const;
export const SNAPSHOT_KIND = 'RoutingSnapshot';

/** "group/version/resource", core group empty: "/v1/pods". */
const gvrKey = z.string().regex(/^[^/]*\/[^/]+\/[^/]+$/, 'a GVR is "group/version/resource"');

/**
 * The cluster source at capture time: what the apiservers themselves answered, from their audit logs
 * (files, webhook) — each event says which (`via`) — beside the port's own events. What their /metrics
 * said is each server's `apiserverMetrics`. Absent when no cluster source was read, and in snapshots
 * of earlier Peerscope versions.
 */
export const snapshotClusterSchema = z.object({
  /** The servers whose audit events were read. */
  servers: z.array(z.string()),
  /** The cluster's sources that were read (audit log files, the webhook). */
  sources: z.array(clusterSourceSchema),
  /** Every request counted, by outcome (more than `events` holds). */
  totals: clusterTotalsSchema,
  /** Requests counted per source read. */
  bySource: clusterBySourceSchema,
  /** The most recent cluster events, oldest first. */
  events: z.array(clusterEventSchema),
  lastSeq: z.number().int().nonnegative(),
  /** Per server, what it answered per minute (the last hour). */
  minutes: z.array(z.object({ server: z.string(), minutes: z.array(clusterMinuteSchema) })),
  /** What each server answered per GVR over the minute before capture. */
  gvrRates: clusterGvrRatesSchema,
  /** Who called a deprecated API, from the servers' audit annotations. */
  deprecatedCalls: z.array(auditDeprecatedCallSchema),
  /** The cluster's clients as the upgrade-impact report counts them; absent in snapshots of earlier Peerscope versions. */
  usage: clientUsageSchema.optional(),
});
export type SnapshotCluster = z.infer<typeof snapshotClusterSchema>;

/** A server as it was at capture time: its public status, and its own discovery as GVR lists. */
export const snapshotServerSchema = serverStatusSchema
  .pick({
    name: true,
    displayName: true,
    url: true,
    source: true,
    health: true,
    failingChecks: true,
    gitVersion: true,
    latencyMs: true,
    ownMvp: true,
    apiserverMetrics: true,
  })
  .extend({
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
    discoveryMode: discoveryModeSchema,
    policy: z.string(),
    /** Taken with `--faithful` (rule P8 off); absent in snapshots of earlier versions and when off. */
    faithful: z.boolean().optional(),
  }),
  servers: z.array(snapshotServerSchema),
  /**
   * The peer-aggregated discovery document as `handling` answered it at capture time, as GVRs (sorted).
   * Absent in snapshots of earlier Peerscope versions: the offline Discovery screen then explains it.
   */
  mergedDiscovery: mergedDiscoveryViewSchema.optional(),
  routeTable: z.object({
    rows: z.array(z.object({ gvr: gvrKey, servers: z.array(z.string()) })),
    /** GVRs served by some servers but not all. */
    skewed: z.array(gvrKey),
  }),
  counters: z.array(
    z.object({
      outcome: routeOutcomeSchema,
      gvr: z.string(),
      handling: z.string(),
      answeredBy: z.string(),
      count: z.number().int().nonnegative(),
    }),
  ),
  /** The most recent routing events, oldest first. */
  events: z.array(routingEventSchema),
  /** Requests per client × GVR × verb (absent in snapshots of earlier Peerscope versions). */
  usage: clientUsageSchema.optional(),
  /** The upgrade-impact report against the next release, as the port made it at capture time. */
  impact: impactReportSchema.optional(),
  cluster: snapshotClusterSchema.optional(),
  /** Built from a session's recording at a moment (contract/snapshot-at.ts): what it leaves out and why. Absent when taken from a running core. */
  recorded: snapshotRecordedSchema.optional(),
});

export type RoutingSnapshot = z.infer<typeof routingSnapshotSchema>;
export type SnapshotServer = z.infer<typeof snapshotServerSchema>;

/**
 * Identity → the name a person reads, from the snapshots given (the later first: a server in both is
 * named as it was last); a snapshot of an earlier Peerscope version records none, and its servers are
 * shown by their identities.
 */
export function snapshotServerNames(...snapshots: readonly RoutingSnapshot[]): (name: string) => string {
  const shown = new Map<string, string>();
  for (const s of snapshots) for (const server of s.servers) if (!shown.has(server.name)) shown.set(server.name, shownName(server));
  return (name) => shown.get(name) ?? name;
}

/**
 * The largest snapshot file Peerscope reads: far above a real one (5 servers × 1,000 GVRs × 10,000
 * events is under 10 MB). Shared by the core (which refuses bigger files) and the hosts (which need
 * not read a bigger file into memory to hear that).
 */
export const MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024;

const gvrList = z.array(z.string());
const serverChange = z.object({ name: z.string(), from: z.string(), to: z.string() });

/** What changed between two snapshots (before → after). */
export const snapshotDiffSchema = z.object({
  servers: z.object({
    added: z.array(z.string()),
    removed: z.array(z.string()),
    /** Servers present in both whose release (gitVersion) changed. */
    upgraded: z.array(serverChange),
    healthChanged: z.array(serverChange),
  }),
  /** Per server present in both: GVRs its own discovery gained and lost. */
  gvrs: z.array(z.object({ server: z.string(), gained: gvrList, lost: gvrList })),
  skew: z.object({ became: gvrList, resolved: gvrList }),
  /** Per GVR whose outcome shares changed: fraction of requests (0..1) before and after. */
  outcomeRates: z.array(
    z.object({
      gvr: z.string(),
      outcome: z.enum(['notfound', 'unavailable', 'rerouted']),
      before: z.number().min(0).max(1),
      after: z.number().min(0).max(1),
      requestsBefore: z.number().int().nonnegative(),
      requestsAfter: z.number().int().nonnegative(),
    }),
  ),
});
export type SnapshotDiff = z.infer<typeof snapshotDiffSchema>;

/**
 * Why a snapshot file could not be read, as data a UI can show: the file, and the field at fault (a
 * JSON pointer) or, for a syntax error, the line and column. `message` is the whole one-line error,
 * as the CLI prints it.
 */
export const snapshotReadErrorSchema = z.object({
  file: z.string(),
  message: z.string(),
  /** The message without the file and position. */
  detail: z.string(),
  reason: z.enum(['too-large', 'syntax', 'not-a-snapshot', 'unknown-version', 'newer-version', 'invalid']),
  pointer: z.string().optional(),
  line: z.number().int().positive().optional(),
  column: z.number().int().positive().optional(),
});
export type SnapshotReadError = z.infer<typeof snapshotReadErrorSchema>;

/** A file read whole (validated, migrated to the current apiVersion) or not at all. */
export const snapshotReadResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), snapshot: routingSnapshotSchema }),
  z.object({ ok: z.literal(false), error: snapshotReadErrorSchema }),
]);
export type SnapshotReadResult = z.infer<typeof snapshotReadResultSchema>;
