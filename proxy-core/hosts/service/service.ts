// The core service: the contract's methods answered in-process over a Core, what the HTTP + SSE host
// and Electron's IPC serve (callers hold a CoreClient; this is the side that answers it).
// Each concern answers its calls in its own file: views.ts (reads), controls.ts (changes), recording.ts
// (the session's recording) and recording-window.ts (its windows); pushed events are events.ts's (batched, coalesced).
import type { CoreClient } from '../../contract/client.js';
import { compareSnapshotsArgsSchema, readSnapshotArgsSchema } from '../../contract/client.js';
import { getImpactReportArgsSchema } from '../../contract/impact.js';
import type { Core } from '../../engine/core.js';
import { impactReportOf } from '../../engine/impact/of-core.js';
import { diffSnapshots } from '../../engine/snapshot/diff.js';
import { readSnapshotText } from '../../engine/snapshot/io.js';
import { takeSnapshot } from '../../engine/snapshot/take.js';
import { controlCalls } from './controls.js';
import { publishCoreEvents } from './events.js';
import { noLibraryCalls } from './no-library.js';
import { recordingCalls } from './recording.js';
import { replayCalls } from './replay.js';
import { recordingWindowCalls } from './recording-window.js';
import type { SimController } from './sim-controller.js';
import { viewCalls } from './views.js';

export interface CoreServiceOptions {
  readonly sim?: SimController;
  /** Batch window for routing events (default 100 ms). */
  readonly batchMs?: number;
  /** Events kept per batch; the counts stay exact (default 500). */
  readonly maxBatchEvents?: number;
  readonly snapshotSource?: 'sim' | 'servers' | 'kubeconfig';
  /** The kubeconfig context snapshots say they were taken from. */
  readonly context?: string;
}

export interface CoreService extends CoreClient {
  /** Stops the batch timer and drops every subscriber. */
  close(): void;
}

export function createCoreService(core: Core, options: CoreServiceOptions = {}): CoreService {
  const sim = options.sim;
  const events = publishCoreEvents(core, sim, options.batchMs ?? 100, options.maxBatchEvents ?? 500);
  const views = viewCalls(core, sim);
  const recording = recordingCalls(core);
  const windows = recordingWindowCalls(recording.reader, (name) => core.serverStatuses().find((s) => s.name === name));
  return {
    ...views,
    ...controlCalls(core, sim, events.emit, views.getOverview),
    async takeSnapshot() {
      return takeSnapshot(core, {
        source: options.snapshotSource ?? (sim ? 'sim' : 'servers'),
        ...(options.context ? { context: options.context } : {}),
      });
    },
    async readSnapshot(args) {
      // Validated here too: an in-process caller (Electron's IPC, the CLI) gets the same checks.
      const { text, file, size } = readSnapshotArgsSchema.parse(args);
      return readSnapshotText(text, file, size);
    },
    async compareSnapshots(args) {
      const { before, after } = compareSnapshotsArgsSchema.parse(args);
      return diffSnapshots(before, after);
    },
    async getImpactReport(args = {}) {
      return impactReportOf(core, getImpactReportArgsSchema.parse(args).to);
    },
    getRecordingTimeline: recording.getRecordingTimeline,
    getStateAt: recording.getStateAt,
    ...replayCalls(recording.reader),
    ...windows,
    // The recordings folder is a host's (session/recordings-library.ts), answered before calls reach a session.
    ...noLibraryCalls(),
    takeSnapshotAt: recording.takeSnapshotAt,
    subscribe: (listener) => events.subscribe(listener),
    close: () => {
      recording.close();
      events.close();
    },
  };
}
