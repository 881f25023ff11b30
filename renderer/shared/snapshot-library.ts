// The snapshots of this window: files opened, live states kept for comparison, and the comparison
// being looked at. It lives as long as the app (not the Snapshots screen), so opening a snapshot
// offline and coming back loses neither the list nor the comparison.
import type { RoutingSnapshot, SnapshotDiff, SnapshotReadError } from '../../proxy-core/contract/index.js';

export interface LibraryEntry {
  readonly id: string;
  /** The file name, or "live state at 10:02:03". */
  readonly label: string;
  readonly origin: 'file' | 'live' | 'recording';
  readonly snapshot: RoutingSnapshot;
}

/** The compare form's choice meaning "the live state, taken when Compare is pressed". */
export const LIVE_NOW = 'live-now';

export interface CompareState {
  readonly beforeId: string;
  readonly afterId: string;
  readonly status: 'idle' | 'running' | 'done' | 'error';
  readonly result?: { readonly before: LibraryEntry; readonly after: LibraryEntry; readonly diff: SnapshotDiff };
  readonly error?: string;
}

/** A file that could not be opened: the core's named error, or why the call itself failed. */
export interface ImportFailure {
  readonly file: string;
  /** The file is at fault: what the core found in it. */
  readonly error?: SnapshotReadError;
  readonly message: string;
  /** The file was never judged (the core did not answer): what to try instead. */
  readonly advice?: string;
}

export interface ImportState {
  /** "Reading before.json…" while files are read. */
  readonly busy?: string;
  readonly failures: readonly ImportFailure[];
}

export interface LibraryState {
  /** Oldest first. */
  readonly entries: readonly LibraryEntry[];
  readonly compare: CompareState;
  readonly importing: ImportState;
}

export class SnapshotLibrary {
  private state: LibraryState = { entries: [], compare: { beforeId: '', afterId: LIVE_NOW, status: 'idle' }, importing: { failures: [] } };
  private readonly listeners = new Set<() => void>();
  private nextId = 1;

  getState = (): LibraryState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  add(snapshot: RoutingSnapshot, label: string, origin: LibraryEntry['origin']): LibraryEntry {
    const entry: LibraryEntry = { id: `s${this.nextId++}`, label, origin, snapshot };
    const entries = [...this.state.entries, entry];
    // The first snapshot kept is the natural "before".
    const compare = this.state.compare.beforeId ? this.state.compare : { ...this.state.compare, beforeId: entry.id };
    this.set({ entries, compare });
    return entry;
  }

  remove(id: string): void {
    const entries = this.state.entries.filter((e) => e.id !== id);
    const c = this.state.compare;
    this.set({
      entries,
      compare: {
        ...c,
        beforeId: c.beforeId === id ? (entries[0]?.id ?? '') : c.beforeId,
        afterId: c.afterId === id ? LIVE_NOW : c.afterId,
      },
    });
  }

  get(id: string): LibraryEntry | undefined {
    return this.state.entries.find((e) => e.id === id);
  }

  setImporting(importing: ImportState): void {
    this.set({ importing });
  }

  setCompare(patch: Partial<CompareState>): void {
    this.set({ compare: { ...this.state.compare, ...patch } });
  }

  private set(patch: Partial<LibraryState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }
}
