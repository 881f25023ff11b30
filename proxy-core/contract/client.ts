// CoreClient: everything the renderer may ask of the core, as plain serialisable calls. Two transports
// carry it (Electron IPC, HTTP + Server-Sent Events), both built from the method table below, so a
// payload that reaches the UI has the shape it claims. No credential is ever part of any payload.
import { z } from 'zod';
import {
  clusterBatchSchema,
  clusterEventsPageSchema,
  clusterGvrRatesSchema,
  clusterMinuteSchema,
  clusterSummarySchema,
} from './cluster.js';
import { routeOutcomes, routingEventSchema, type RouteOutcome } from './events.js';
import { getImpactReportArgsSchema, impactReportSchema } from './impact.js';
import { healthSampleSchema, serverStatusSchema } from './servers.js';
import { routeTableViewSchema } from './route-table.js';
import { getStateAtArgsSchema, recordedStateSchema, recordingTimelineSchema } from './recording.js';
import { getRecordedEventsArgsSchema, recordedEventsPageSchema } from './replay.js';
import { getImpactForWindowArgsSchema, recordingWindowSchema, windowFalse404sSchema } from './recording-window.js';
import { recordingNameArgsSchema, recordingsSchema, retentionSchema } from './recordings.js';
import { unwrapReply, type CallReply } from './errors.js';
import { discoveryModeSchema } from './settings.js';
import { discoveryViewsSchema } from './discovery-view.js';
import { buildClient, buildDispatcher, type CallsOf, type CallTransport, type Dispatch, type MethodTable } from './rpc.js';
import { routingSnapshotSchema, snapshotDiffSchema, snapshotReadResultSchema } from './snapshot.js';
import { takeSnapshotAtArgsSchema } from './snapshot-at.js';

/** Requests through the local port by outcome, one entry per outcome. */
export const outcomeTotalsSchema = z.object(
  Object.fromEntries(routeOutcomes.map((o) => [o, z.number().int().nonnegative()])) as Record<RouteOutcome, z.ZodNumber>,
);
export type OutcomeTotals = Record<RouteOutcome, number>;

export const rolloutPhaseSchema = z.enum(['idle', 'running', 'paused', 'done', 'aborted']);

/** The simulated control plane's controls; present in getOverview() only when the core runs on one. */
export const simStatusSchema = z.object({
  rollout: z.object({
    phase: rolloutPhaseSchema,
    from: z.string(),
    to: z.string(),
    current: z.object({ server: z.string(), phase: z.enum(['draining', 'down', 'up']) }).optional(),
    upgraded: z.array(z.string()),
    /** Why the last rollout stopped, when it failed. */
    error: z.string().optional(),
  }),
  /**
   * Requests per second the traffic generator sends through the port (the demo sends as many again
   * straight to the servers); undefined when there is none.
   */
  trafficRps: z.number().nonnegative().optional(),
});
export type SimStatus = z.infer<typeof simStatusSchema>;

export const settingsSchema = z.object({
  /** "round-robin", "random" or "pin:NAME". */
  policy: z.string(),
  discoveryMode: discoveryModeSchema,
  /**
   * `--faithful`: the servers' own Mixed Version Proxy exactly — OpenAPI and legacy discovery are the
   * handling server's own (rule P8 off). Absent from hosts that predate it (read as false).
   */
  faithful: z.boolean().optional(),
});
export type Settings = z.infer<typeof settingsSchema>;

/** A recording opened from a file, as the overview names it. */
export const shownRecordingSchema = z.object({
  /** The file's name (no folder). */
  name: z.string(),
  /** Epoch ms: the first and the last thing it recorded. */
  startedAt: z.number(),
  endedAt: z.number(),
});
export type ShownRecording = z.infer<typeof shownRecordingSchema>;

export const overviewSchema = settingsSchema.extend({
  /** The local port; null before it listens. */
  listen: z.object({ host: z.string(), port: z.number().int(), url: z.string() }).nullable(),
  servers: z.array(serverStatusSchema),
  totals: outcomeTotalsSchema,
  lastSeq: z.number().int().nonnegative(),
  sim: simStatusSchema.optional(),
  /** The cluster source: present only when the core follows the servers' audit logs. */
  cluster: clusterSummarySchema.optional(),
  /**
   * Present only while the app shows a recording opened from a file (read-only): which one and its span.
   * The rest of the overview is then the recording's at its end; no port listens for it (`listen` is null).
   */
  recording: shownRecordingSchema.optional(),
});
export type Overview = z.infer<typeof overviewSchema>;

// The GVR matrix's view (each server's column, the GVRs it serves): route-table.ts.
export * from './route-table.js';

export const getEventsArgsSchema = z.object({
  /** Only events with a greater seq. */
  sinceSeq: z.number().int().nonnegative().optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});
export type GetEventsArgs = z.infer<typeof getEventsArgsSchema>;

export const eventsPageSchema = z.object({
  /** Oldest first. */
  events: z.array(routingEventSchema),
  lastSeq: z.number().int().nonnegative(),
});
export type EventsPage = z.infer<typeof eventsPageSchema>;

export const healthHistorySchema = z.object({
  servers: z.array(
    z.object({
      name: z.string(),
      samples: z.array(healthSampleSchema),
      /**
       * Requests this server failed, per 5-second bucket (only buckets with failures; oldest first):
       * refused or reset connections, stalls, answers cut short, and its own 5xx answers.
       */
      errors: z.array(z.object({ at: z.number(), count: z.number().int().positive() })).optional(),
      /** What the server answered per minute, from its audit log (the cluster source); absent when none is followed. */
      cluster: z.array(clusterMinuteSchema).optional(),
    }),
  ),
});
export type HealthHistory = z.infer<typeof healthHistorySchema>;

// The Discovery screen's views (the merged document against each server's own): discovery-view.ts.
export { discoveryViewsOf, discoveryViewsSchema, gvrKeySchema, type DiscoveryViews } from './discovery-view.js';

export const setPolicyArgsSchema = z.object({ policy: z.string().min(1) });
export const setDiscoveryModeArgsSchema = z.object({ mode: discoveryModeSchema });
export const setTrafficRateArgsSchema = z.object({ rps: z.number().nonnegative().max(100_000) });
/**
 * A snapshot file's text and its name (shown in errors). `size` is the file's size in bytes when the
 * host knows it: a file over MAX_SNAPSHOT_BYTES is refused by its size, so a host need not read it.
 */
export const readSnapshotArgsSchema = z.object({
  text: z.string(),
  file: z.string().min(1).max(4096),
  size: z.number().int().nonnegative().optional(),
});
export type ReadSnapshotArgs = z.infer<typeof readSnapshotArgsSchema>;
export const compareSnapshotsArgsSchema = z.object({ before: routingSnapshotSchema, after: routingSnapshotSchema });
export type CompareSnapshotsArgs = z.infer<typeof compareSnapshotsArgsSchema>;

/** Pushed to subscribers. Routing events arrive in batches (at most ~10 a second per subscriber). */
export const coreEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('routing'),
    /** The most recent events of the batch window, oldest first; may be fewer than `count`. */
    events: z.array(routingEventSchema),
    /** Every event of the window, by outcome (exact even when `events` was trimmed). */
    counts: outcomeTotalsSchema,
    count: z.number().int().nonnegative(),
    /** Length of the batch window in ms. */
    windowMs: z.number().nonnegative(),
    lastSeq: z.number().int().nonnegative(),
  }),
  /** The cluster source's events (requests the apiservers answered, from their audit logs), batched as routing events are. */
  clusterBatchSchema,
  z.object({ type: z.literal('servers'), servers: z.array(serverStatusSchema) }),
  z.object({ type: z.literal('route-table'), generation: z.number().int().nonnegative(), skewedCount: z.number().int().nonnegative() }),
  z.object({ type: z.literal('settings'), settings: settingsSchema }),
  z.object({ type: z.literal('sim'), sim: simStatusSchema }),
  /**
   * The host switched what the core runs on (the desktop app opened another kubeconfig, or the simulated
   * cluster): every cached view and the routing stream belong to the previous one and start over.
   */
  z.object({ type: z.literal('session'), id: z.string(), label: z.string() }),
  /** The desktop app's menu opened a snapshot file (validated whole): the UI shows it offline. */
  z.object({ type: z.literal('snapshot-opened'), file: z.string(), snapshot: routingSnapshotSchema }),
]);
export type CoreEvent = z.infer<typeof coreEventSchema>;
export type RoutingBatch = Extract<CoreEvent, { type: 'routing' }>;

/**
 * Every request/response method: the schema of its argument object (`undefined`: it takes none) and of
 * its result. This table is the contract: the CoreClient type, the client every transport builds and
 * the dispatcher every host runs are derived from it (contract/rpc.ts), so a method added here is one
 * row plus one method of the core service.
 */
export const coreClientMethods = {
  getOverview: { args: undefined, result: overviewSchema },
  getRouteTable: { args: undefined, result: routeTableViewSchema },
  getEvents: { args: getEventsArgsSchema, result: eventsPageSchema },
  /** The cluster source's recent events; empty when the core follows no audit log. */
  getClusterEvents: { args: getEventsArgsSchema, result: clusterEventsPageSchema },
  /** What each server answered per GVR over the last minute (the cluster source); no cells when the core follows no audit log. */
  getClusterGvrRates: { args: undefined, result: clusterGvrRatesSchema },
  getHealthHistory: { args: undefined, result: healthHistorySchema },
  getDiscoveryViews: { args: undefined, result: discoveryViewsSchema },
  setDiscoveryMode: { args: setDiscoveryModeArgsSchema, result: settingsSchema },
  /** `policy`: "round-robin", "random" or "pin:NAME"; any other text is refused. */
  setPolicy: { args: setPolicyArgsSchema, result: settingsSchema },
  takeSnapshot: { args: undefined, result: routingSnapshotSchema },
  /**
   * Reads a snapshot file: validated and migrated whole, or an error naming the file and the field
   * (JSON pointer) or line and column at fault; "made by a newer Peerscope" for a newer apiVersion.
   */
  readSnapshot: { args: readSnapshotArgsSchema, result: snapshotReadResultSchema },
  /** What changed from `before` to `after` (as `peerscope snapshot diff`). */
  compareSnapshots: { args: compareSnapshotsArgsSchema, result: snapshotDiffSchema },
  getImpactReport: { args: getImpactReportArgsSchema, result: impactReportSchema },
  /** Stops the core's read of audit log files (getOverview().cluster.read); what was read still counts. Answers the overview after. */
  cancelAuditRead: { args: undefined, result: overviewSchema },
  /** Simulated cluster only (getOverview().sim): starts the rollout, or resumes a paused one. */
  startRollout: { args: undefined, result: simStatusSchema },
  /** Simulated cluster only: pauses between rollout phases. */
  pauseRollout: { args: undefined, result: simStatusSchema },
  /** Simulated cluster only. */
  setTrafficRate: { args: setTrafficRateArgsSchema, result: simStatusSchema },
  /** The session's recording: its span and each server's health and release changes (the time control's strip); null when the session records nothing. */
  getRecordingTimeline: { args: undefined, result: recordingTimelineSchema.nullable() },
  /** The servers and the route table as recorded at a moment; PEERSCOPE_ERR_NO_RECORDING when the session records nothing. */
  getStateAt: { args: getStateAtArgsSchema, result: recordedStateSchema },
  /**
   * A page of the recording's events in a window, oldest first, for a replay (replay.ts); page on with
   * `after: next`. PEERSCOPE_ERR_NO_RECORDING when the session records nothing.
   */
  getRecordedEvents: { args: getRecordedEventsArgsSchema, result: recordedEventsPageSchema },
  /** The upgrade-impact report over a window of the recording (the clients it counted then, the servers at its end); PEERSCOPE_ERR_NO_RECORDING as getStateAt. */
  getImpactForWindow: { args: getImpactForWindowArgsSchema, result: impactReportSchema },
  /** Who got false 404s in a window of the recording, per client × server × GVR (the cluster source's). */
  getFalse404sForWindow: { args: recordingWindowSchema, result: windowFalse404sSchema },
  /** The app's recordings folder: its recordings, the retention cap and what the cap removed; null on a host that keeps none (`serve --ui`). */
  getRecordings: { args: undefined, result: recordingsSchema.nullable() },
  /** Sets the retention cap (kept in the folder's settings file) and applies it at once. */
  setRetention: { args: retentionSchema, result: recordingsSchema },
  /** Shows a recording of the folder offline (a read-only session); the live session keeps running behind it. */
  openRecording: { args: recordingNameArgsSchema, result: recordingsSchema },
  /** Removes a recording of the folder; not the one being written nor the one shown. */
  deleteRecording: { args: recordingNameArgsSchema, result: recordingsSchema },
  /** Desktop app only: the operator picks a recording file, which is copied into the folder and opened. */
  chooseRecordingFile: { args: undefined, result: recordingsSchema },
  /** Back from a recording shown offline to the live session. */
  leaveRecording: { args: undefined, result: recordingsSchema },
  /** A routing snapshot of the session's recording at a moment; what the recording lacks is left out and named in `recorded`. PEERSCOPE_ERR_NO_RECORDING when the session records nothing. */
  takeSnapshotAt: { args: takeSnapshotAtArgsSchema, result: routingSnapshotSchema },
} as const satisfies MethodTable;
export type CoreClientMethod = keyof typeof coreClientMethods;

/** The request/response calls of the contract, each taking its argument object. */
export type CoreCalls = CallsOf<typeof coreClientMethods>;

/** Everything the renderer may ask of the core: the calls, and the pushed events. */
export interface CoreClient extends CoreCalls {
  /** Returns the unsubscribe function. */
  subscribe(listener: (event: CoreEvent) => void): () => void;
}

/**
 * What Electron's preload exposes as `window.peerscope`: each call resolves with its reply envelope
 * (never rejects: an error thrown across contextBridge keeps only its message, the envelope keeps the
 * code), and the pushed events as they came. The page turns it into a CoreClient with createCoreClient.
 */
export type CoreBridge = { readonly [M in CoreClientMethod]: (input?: unknown) => Promise<CallReply> } & {
  subscribe(listener: (event: unknown) => void): () => void;
};

/** A CoreClient over any transport: every answer and every pushed event checked against the contract. */
export function createCoreClient(transport: {
  readonly call: CallTransport<typeof coreClientMethods>;
  /** Delivers each pushed event as it arrived; returns the unsubscribe function. */
  readonly subscribe: (listener: (raw: unknown) => void) => () => void;
}): CoreClient {
  return {
    ...buildClient(coreClientMethods, transport.call),
    subscribe(listener) {
      return transport.subscribe((raw) => {
        const parsed = coreEventSchema.safeParse(raw);
        // A newer core's event kind: ignored rather than break the stream.
        if (parsed.success) listener(parsed.data);
      });
    },
  };
}

/** The CoreClient over Electron's preload bridge: each reply unwrapped, a failure thrown with its code. */
export function createBridgedCoreClient(bridge: CoreBridge): CoreClient {
  return createCoreClient({
    call: async (method, input) => unwrapReply(await bridge[method](input)),
    subscribe: (listener) => bridge.subscribe(listener),
  });
}

/** Runs a call that came over a wire against the core service, its arguments validated. */
export function createCoreDispatcher(service: CoreCalls): Dispatch<typeof coreClientMethods> {
  return buildDispatcher(coreClientMethods, service);
}
