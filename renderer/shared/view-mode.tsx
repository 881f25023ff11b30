// Which state the screens show: the live cluster, or a snapshot opened offline. The screens render
// whatever CoreClient they are given; this says which one it is, so they can word things for a
// snapshot (no "live" stream, health at capture time) and hide what would change a cluster.
import { createContext, useContext } from 'react';
import type { CoreClient, RoutingSnapshot } from '../../proxy-core/contract/index.js';
import type { LibraryEntry, SnapshotLibrary } from './snapshot-library.js';
import type { SnapshotCoreClient } from './transport/snapshot-client.js';

export interface OfflineView {
  readonly entry: LibraryEntry;
  readonly snapshot: RoutingSnapshot;
  readonly client: SnapshotCoreClient;
}

export interface ViewState {
  /** The snapshot shown, or null for the live cluster. */
  readonly offline: OfflineView | null;
  /** The live core (reading and comparing snapshot files, taking the live state). */
  readonly live: CoreClient;
  readonly library: SnapshotLibrary;
  /** Shows a snapshot of the library offline in every screen. */
  open(entry: LibraryEntry): void;
  /** Back to the live cluster. */
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
