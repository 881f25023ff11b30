// Which state the screens show: the live cluster, a snapshot opened offline, or a moment of the
// session's recording. The screens render whatever CoreClient they are given; this says which one it
// is, so they can word things for a snapshot or a moment (no "live" stream, health at that time) and
// hide what would change a cluster.
import type { QueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import type { CoreClient, RecordedState, RoutingSnapshot, ShownRecording } from '../../proxy-core/contract/index.js';
import type { LibraryEntry, SnapshotLibrary } from './snapshot-library.js';
import type { SnapshotCoreClient } from './transport/snapshot-client.js';

export interface OfflineView {
  readonly entry: LibraryEntry;
  readonly snapshot: RoutingSnapshot;
  readonly client: SnapshotCoreClient;
}

/** A moment of the session's recording, shown read-only in every screen that has data for it. */
export interface MomentView {
  /** Epoch ms. */
  readonly at: number;
  readonly state: RecordedState;
  readonly client: CoreClient;
  /** The recording opened from a file the moment is of; undefined for the session's own recording. */
  readonly recording?: ShownRecording | undefined;
}

/** A span of the session's recording (epoch ms, `from` < `to`): Upgrade impact, False 404s by client and
 * the replay read it from the recording; every other screen shows the state at `to`. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
}

/** Which of the time control's buttons chose the window: the last minutes, the whole recording, or a range typed or dragged. */
export type WindowChoice = 'last' | 'whole' | 'range';

export interface ViewState {
  /** The snapshot shown, or null for the live cluster. */
  readonly offline: OfflineView | null;
  /** The recorded moment shown, or null for the live cluster. */
  readonly moment: MomentView | null;
  /** Shows the recording at `at` (epoch ms) in every screen; rejects when the recording cannot be read then. */
  showMoment(at: number): Promise<void>;
  /** The recorded window chosen, or null (live, a snapshot, or a single moment). `moment` is then its end. */
  readonly window: TimeWindow | null;
  /** How the window shown was chosen (null when none is). */
  readonly windowChoice: WindowChoice | null;
  /** Shows the recording over `window` in every screen (the state at its end where a screen shows a moment); rejects as showMoment. */
  showWindow(window: TimeWindow, choice?: WindowChoice): Promise<void>;
  /** The live core (reading and comparing snapshot files, taking the live state, the recording). */
  readonly live: CoreClient;
  /** The live core's query cache, which outlives every snapshot and moment shown. */
  readonly liveQueries: QueryClient;
  readonly library: SnapshotLibrary;
  /** Shows a snapshot of the library offline in every screen. */
  open(entry: LibraryEntry): void;
  /** Back to the live cluster (from a snapshot or a moment). */
  leave(): void;
}

export const ViewContext = createContext<ViewState | null>(null);

/** The view state; null when a screen is rendered on its own (component tests). */
export function useView(): ViewState | null {
  return useContext(ViewContext);
}

/** The snapshot shown offline, or null when the screens show the live cluster. */
export function useOffline(): OfflineView | null {
  return useContext(ViewContext)?.offline ?? null;
}

/** The recorded moment shown, or null when the screens show the live cluster or a snapshot. */
export function useMoment(): MomentView | null {
  return useContext(ViewContext)?.moment ?? null;
}

/** The recorded window chosen in the time control, or null when none is (live, a snapshot, or a moment). */
export function useTimeWindow(): TimeWindow | null {
  return useContext(ViewContext)?.window ?? null;
}
