// A recording opened from a file, as a session: a read-only CoreClient answered from the file alone.
// The "live" calls (overview, servers, route table, health history) answer the recording's last
// state, the impact report its whole span; the recording's own calls (a snapshot at a moment
// included) answer the file; every call that would change a cluster is refused
// as read-only. Each answer is a function of a RecordingReader (ReaderCall), so calls written that way
// elsewhere (windows, replay, reports) plug in through `calls` without touching this file's logic.
import { basename } from 'node:path';
import {
  coreClientMethods,
  type CoreCalls,
  type CoreClient,
  type CoreClientMethod,
  type OutcomeTotals,
  type ShownRecording,
} from '../../contract/client.js';
import { routeOutcomes } from '../../contract/events.js';
import { clientFromHandlers } from '../../contract/rpc.js';
import { PeerscopeError } from '../../contract/errors.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { stateAt, timelineOf } from '../../engine/recording/state-at.js';
import { readSnapshotText } from '../../engine/snapshot/io.js';
import { diffSnapshots } from '../../engine/snapshot/diff.js';
import { compareSnapshotsArgsSchema, readSnapshotArgsSchema } from '../../contract/client.js';
import { getImpactReportArgsSchema } from '../../contract/impact.js';
import { getStateAtArgsSchema } from '../../contract/recording.js';
import { takeSnapshotAtArgsSchema } from '../../contract/snapshot-at.js';
import { impactForWindow, recordingWindowCalls } from '../service/recording-window.js';
import { replayCalls } from '../service/replay.js';
import { snapshotAt } from '../service/snapshot-at.js';

/**
 * Contract calls made over a reader getter, as the service's own recording calls are written
 * (`replayCalls(reader)`, `recordingWindowCalls(reader)`): they serve a file opened here unchanged.
 */
export type ReaderCallsOf = (reader: () => RecordingReader) => Partial<CoreCalls>;

/** A contract call answered from an open recording. */
export type ReaderCall<M extends CoreClientMethod> = (
  reader: RecordingReader,
  args: Parameters<CoreCalls[M]>[0],
) => ReturnType<CoreCalls[M]>;
export type ReaderCalls = { readonly [M in CoreClientMethod]?: ReaderCall<M> };

/** What each change would have done, for the refusal. */
const CHANGES: Partial<Record<CoreClientMethod, string>> = {
  setDiscoveryMode: 'changing the discovery mode',
  setPolicy: 'changing the handling policy',
  startRollout: 'starting a rollout',
  pauseRollout: 'pausing a rollout',
  setTrafficRate: 'setting the traffic rate',
  cancelAuditRead: 'stopping an audit log read',
};

/** The recording's last state: the moment of the last thing it recorded. */
const lastState = (reader: RecordingReader) => stateAt(reader, reader.info().endedAt, () => undefined);

/** Requests through the port over the whole recording, by outcome (from the per-minute rollups). */
function portTotals(reader: RecordingReader): OutcomeTotals {
  const totals = Object.fromEntries(routeOutcomes.map((o) => [o, 0])) as OutcomeTotals;
  for (const c of reader.counts({}, false, (s) => s.source === 'port'))
    if (Object.hasOwn(totals, c.outcome)) totals[c.outcome as keyof OutcomeTotals] += c.count;
  return totals;
}

/** Which recording the overview is of: its file's name and span, so the top bar says so in place of "live". */
function shownRecording(reader: RecordingReader): ShownRecording {
  const { file, startedAt, endedAt } = reader.info();
  return { name: basename(file), startedAt, endedAt };
}

/** The calls every recording session answers from its file. */
export const recordingReaderCalls: ReaderCalls = {
  async getOverview(reader) {
    const state = lastState(reader);
    return {
      policy: state.settings.policy ?? 'round-robin',
      discoveryMode: state.settings.discoveryMode ?? 'peer-aggregated',
      listen: null,
      servers: state.servers,
      totals: portTotals(reader),
      lastSeq: 0,
      recording: shownRecording(reader),
    };
  },
  getRouteTable: async (reader) => lastState(reader).routeTable,
  getHealthHistory: async (reader) => ({ servers: lastState(reader).history }),
  // The live streams are a running session's: a recording has none.
  getEvents: async () => ({ events: [], lastSeq: 0 }),
  getClusterEvents: async () => ({ events: [], lastSeq: 0 }),
  getClusterGvrRates: async () => ({ seconds: 0, cells: [] }),
  getRecordingTimeline: async (reader) => ({ ...timelineOf(reader), ended: true }),
  getStateAt: async (reader, args) => stateAt(reader, getStateAtArgsSchema.parse(args).at, () => undefined),
  // As `snapshot save --recording FILE --at`: what the file holds then, what it lacks named in `recorded`.
  takeSnapshotAt: async (reader, args) => snapshotAt(reader, takeSnapshotAtArgsSchema.parse(args).at),
  // The clients the whole recording counted, judged against its servers at its end (the top bar's totals are the whole recording's too).
  getImpactReport: async (reader, args) => {
    const { startedAt, endedAt } = reader.info();
    return impactForWindow(reader, { from: startedAt, to: endedAt + 1 }, getImpactReportArgsSchema.parse(args ?? {}).to);
  },
  // Snapshot files are read and compared as anywhere else: no cluster is needed.
  readSnapshot: async (_reader, args) => {
    const { text, file, size } = readSnapshotArgsSchema.parse(args);
    return readSnapshotText(text, file, size);
  },
  compareSnapshots: async (_reader, args) => {
    const { before, after } = compareSnapshotsArgsSchema.parse(args);
    return diffSnapshots(before, after);
  },
};

export interface RecordingSession {
  readonly kind: 'recording';
  readonly file: string;
  /** Shown to the operator: "recording demo-20261128-143205". */
  readonly label: string;
  readonly service: CoreClient;
  close(): void;
}

export interface RecordingSessionOptions {
  readonly label?: string;
  /** Reader calls added to (or replacing) recordingReaderCalls. */
  readonly calls?: ReaderCalls;
  /** Calls made over a reader getter, added last; by default the service's replay and window calls. */
  readonly callsOf?: readonly ReaderCallsOf[];
}

/** The live service's calls on its own recording, which serve a file opened here unchanged. */
const SERVICE_READER_CALLS: readonly ReaderCallsOf[] = [replayCalls, (reader) => recordingWindowCalls(reader)];

/**
 * Opens `file` (checked first: a file that is not a whole recording rejects naming the file and the
 * fault) as a read-only session answered by recordingReaderCalls, `calls` and `callsOf`.
 */
export function openRecordingSession(file: string, options: RecordingSessionOptions = {}): RecordingSession {
  const reader = RecordingReader.open(file);
  const label = options.label ?? `recording ${file}`;
  const table: ReaderCalls = { ...recordingReaderCalls, ...options.calls };
  const handlers = Object.fromEntries(
    Object.entries(table).map(([method, call]) => [
      method,
      (args: unknown) => Promise.resolve().then(() => (call as (r: RecordingReader, a: unknown) => Promise<unknown>)(reader, args)),
    ]),
  ) as Partial<CoreCalls>;
  for (const callsOf of options.callsOf ?? SERVICE_READER_CALLS)
    Object.assign(
      handlers,
      callsOf(() => reader),
    );
  const calls = clientFromHandlers(coreClientMethods, handlers, (method) =>
    Promise.reject(
      CHANGES[method]
        ? new PeerscopeError(
            'PEERSCOPE_ERR_READ_ONLY',
            `${label} is read-only: ${CHANGES[method]} needs a live cluster. Go back to live first.`,
          )
        : new PeerscopeError('PEERSCOPE_ERR_OFFLINE', `${label} does not answer ${method}: go back to live for it.`),
    ),
  );
  return {
    kind: 'recording',
    file,
    label,
    // A file opened offline never changes: nothing is pushed.
    service: { ...calls, subscribe: () => () => undefined },
    close: () => reader.close(),
  };
}
