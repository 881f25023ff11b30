// What the Snapshots screen does, without React: open files through the core (each read whole, a
// bad one named with its fault) and compare two snapshots, the live state taken now included.
import { MAX_SNAPSHOT_BYTES, type RoutingSnapshot } from '../../../proxy-core/contract/index.js';
import { adviceFor, errorMessage, isTransportFailure } from '../../shared/ui/call-errors.js';
import { formatClock } from '../../shared/ui/format.js';
import type { ViewState } from '../../shared/view-mode.js';
import { LIVE_NOW, type CompareState, type ImportFailure, type LibraryEntry } from '../../shared/snapshot-library.js';

export const liveLabel = (at = Date.now()) => `live state at ${formatClock(at)}`;

/** Reads each file through the core into the library; one good file alone is opened at once. */
export async function importSnapshotFiles(view: ViewState, files: readonly File[]): Promise<void> {
  const failures: ImportFailure[] = [];
  const opened: LibraryEntry[] = [];
  for (const file of files) {
    const name = file.name || 'snapshot.json';
    view.library.setImporting({ busy: `Reading ${name}…`, failures });
    try {
      // A file over the limit is refused by its size: no need to read it into memory first.
      const text = file.size > MAX_SNAPSHOT_BYTES ? '' : await file.text();
      const result = await view.live.readSnapshot({ text, file: name, size: file.size });
      if (result.ok) opened.push(view.library.add(result.snapshot, name, 'file'));
      else failures.push({ file: name, error: result.error, message: result.error.message });
    } catch (err) {
      // A transport failure says nothing about the file: say so, and what to try, rather than blame it.
      const advice = adviceFor(err);
      failures.push(
        isTransportFailure(err)
          ? { file: name, message: `${name} was not read: ${errorMessage(err)}`, ...(advice ? { advice } : {}) }
          : { file: name, message: `${name}: could not be read: ${errorMessage(err)}`, ...(advice ? { advice } : {}) },
      );
    }
  }
  view.library.setImporting({ failures });
  // One good file: show it. Several: they wait in the list below.
  if (opened.length === 1 && failures.length === 0) view.open(opened[0]!);
}

/** Compares the two chosen snapshots; the live state is taken (once) if chosen. The result lands in the library's compare state. */
export async function compareChosen(view: ViewState, compare: Pick<CompareState, 'beforeId' | 'afterId'>): Promise<void> {
  view.library.setCompare({ status: 'running', error: undefined });
  try {
    let liveNow: LibraryEntry | undefined;
    const resolve = async (id: string): Promise<LibraryEntry> => {
      if (id !== LIVE_NOW) {
        const entry = view.library.get(id);
        if (!entry) throw new Error('that snapshot was removed');
        return entry;
      }
      if (!liveNow) {
        const snapshot: RoutingSnapshot = await view.live.takeSnapshot();
        liveNow = view.library.add(snapshot, liveLabel(Date.parse(snapshot.takenAt)), 'live');
      }
      return liveNow;
    };
    const before = await resolve(compare.beforeId);
    const after = await resolve(compare.afterId);
    const diff = await view.live.compareSnapshots({ before: before.snapshot, after: after.snapshot });
    view.library.setCompare({ status: 'done', result: { before, after, diff } });
  } catch (err) {
    view.library.setCompare({ status: 'error', error: err instanceof Error ? err.message : String(err) });
  }
}
