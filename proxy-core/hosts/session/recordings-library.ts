// The app's recordings folder, as a host serves it: every live session records into a new file here,
// the retention cap is applied when a session starts and hourly while it runs (never to the file being
// written, nor to the one shown), and a recording — of the folder, or a file from elsewhere copied in
// — is shown by switching the app's session to a read-only one over the file, the live session kept
// running behind it until the operator goes back. The contract's folder calls are answered here,
// before any call reaches a session (a session's own service refuses them: service/no-library.ts).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PeerscopeError } from '../../contract/errors.js';
import { recordingNameArgsSchema, retentionSchema, type Recordings } from '../../contract/recordings.js';
import { COMPANIONS, recordingImporter, type RecordingImporter } from './recording-imports.js';
import { listRecordings } from '../../engine/recording/list.js';
import { applyRetention, storedRecordings, type RemovedRecording } from '../../engine/recording/retention.js';
import type { CoreService } from '../service/service.js';
import type { LibraryCalls } from '../service/no-library.js';
import { newRecordingName, readRetentionSettings, writeRetentionSettings } from './recordings-folder.js';
import { openRecordingSession, type ReaderCalls, type ReaderCallsOf, type RecordingSession } from './recording-session.js';
import type { SwitchableSession, SwitchingService } from './switching-service.js';

export const HOUR_MS = 3_600_000;

export interface RecordingsLibraryOptions {
  readonly service: SwitchingService;
  readonly folder: string;
  /** The desktop app's open dialog: the file the operator picked; undefined when cancelled. Absent in browser mode (uploads). */
  readonly chooseFile?: () => Promise<string | undefined>;
  /** How often the cap is applied while the app runs (default hourly). */
  readonly pruneIntervalMs?: number;
  /** Reader calls added to every recording session opened (recording-session.ts). */
  readonly readerCalls?: ReaderCalls;
  /** Calls made over a reader getter (the service's replay and window calls) for every recording session opened. */
  readonly readerCallsOf?: readonly ReaderCallsOf[];
}

/** A live session as the switching service holds it; hosts' sessions may close (the app's do). */
type LiveSession = SwitchableSession & { readonly portUrl?: string; close?(): Promise<unknown> };

/** importFile, importBytes: a recording from elsewhere copied in, checked whole first (recording-imports.ts). */
export interface RecordingsLibrary extends RecordingImporter {
  readonly folder: string;
  /** The switching service with the folder's calls answered: what a host serves to its UI. */
  readonly service: CoreService;
  readonly calls: LibraryCalls;
  /** A new file for a live session to record into ("demo", a context's name); the cap is applied first, sparing it. */
  newRecordingFile(what: string): string;
  /** Stops the hourly cap and closes a recording shown (the live session stays its owner's). */
  close(): void;
}

export function createRecordingsLibrary(options: RecordingsLibraryOptions): RecordingsLibrary {
  const { folder, service: switching } = options;
  mkdirSync(folder, { recursive: true });
  const removed: RemovedRecording[] = [];
  const importer = recordingImporter(folder);
  let writing: string | undefined;
  let shown: { session: RecordingSession; name: string; live: LiveSession | undefined } | undefined;

  const prune = () => {
    const keep = [writing, shown?.session.file].filter((f): f is string => f !== undefined);
    removed.unshift(...applyRetention(folder, readRetentionSettings(folder).retention, { keep }).reverse());
    removed.splice(50);
  };
  const timer = setInterval(prune, options.pruneIntervalMs ?? HOUR_MS);
  timer.unref();

  const fileOf = (name: string) => fileIn(folder, name);

  const describe = (): Recordings =>
    describeFolder(folder, { writing, shown: shown?.session.file, removed, picker: options.chooseFile ? 'dialog' : 'upload' });

  const open = async (name: string): Promise<Recordings> => {
    const file = fileOf(name);
    const session = openRecordingSession(file, {
      label: `recording ${name}`,
      ...(options.readerCalls ? { calls: options.readerCalls } : {}),
      ...(options.readerCallsOf ? { callsOf: options.readerCallsOf } : {}),
    });
    const live = shown ? shown.live : (switching.current() as LiveSession | undefined);
    shown?.session.close();
    shown = { session, name, live };
    switching.switchTo(
      shownSession(session, live, () => {
        if (shown?.session === session) shown = undefined;
      }),
    );
    return describe();
  };

  const calls: LibraryCalls = {
    getRecordings: async () => describe(),
    async setRetention(args) {
      writeRetentionSettings(folder, retentionSchema.parse(args));
      prune();
      return describe();
    },
    openRecording: async (args) => open(recordingNameArgsSchema.parse(args).name),
    async deleteRecording(args) {
      const { name } = recordingNameArgsSchema.parse(args);
      const file = fileOf(name);
      if (file === writing) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} is being written by the running session`);
      if (file === shown?.session.file) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name} is shown now: go back to live first`);
      for (const suffix of COMPANIONS) rmSync(`${file}${suffix}`, { force: true });
      return describe();
    },
    async chooseRecordingFile() {
      if (!options.chooseFile)
        throw new PeerscopeError('PEERSCOPE_ERR_NO_LIBRARY', 'this host has no file dialog: upload the file from the Recordings screen');
      const source = await options.chooseFile();
      return source ? open(importer.importFile(source)) : describe();
    },
    async leaveRecording() {
      const was = shown;
      if (!was) return describe();
      if (!was.live) throw new PeerscopeError('PEERSCOPE_ERR_NO_CLUSTER', 'no live session runs behind this recording to go back to');
      shown = undefined;
      switching.switchTo(was.live);
      was.session.close();
      return describe();
    },
  };

  const library: RecordingsLibrary = {
    folder,
    calls,
    service: {
      ...switching,
      ...calls,
      close() {
        library.close();
        switching.close();
      },
    },
    newRecordingFile(what) {
      writing = join(folder, newRecordingName(what));
      prune();
      return writing;
    },
    ...importer,
    close() {
      clearInterval(timer);
      shown?.session.close();
      shown = undefined;
    },
  };
  return library;
}

/** The folder as the Recordings screen shows it: usage against the cap, each recording newest first, what the cap removed. */
function describeFolder(
  folder: string,
  state: { writing: string | undefined; shown: string | undefined; removed: readonly RemovedRecording[]; picker: Recordings['picker'] },
): Recordings {
  const settings = readRetentionSettings(folder);
  const stored = new Map(storedRecordings(folder).map((r) => [r.file, r]));
  const recordings = listRecordings(folder)
    .map((r) => ({
      name: basename(r.file),
      bytes: stored.get(r.file)?.bytes ?? 0,
      ...(r.startedAt !== undefined ? { startedAt: r.startedAt, endedAt: r.endedAt, events: r.events } : {}),
      ...(r.servers ? { servers: [...r.servers], releases: [...(r.releases ?? [])] } : {}),
      ...(r.refused !== undefined ? { refused: r.refused } : {}),
      ...(r.file === state.writing ? { writing: true } : {}),
      ...(r.file === state.shown ? { open: true } : {}),
    }))
    .reverse();
  return {
    folder,
    usedBytes: [...stored.values()].reduce((sum, r) => sum + r.bytes, 0),
    retention: settings.retention,
    ...(settings.problem ? { settingsProblem: settings.problem } : {}),
    recordings,
    removed: [...state.removed],
    picker: state.picker,
  };
}

/** The file of a recording of the folder, by its name there only. */
function fileIn(folder: string, name: string): string {
  const file = join(folder, recordingNameArgsSchema.parse({ name }).name);
  if (!existsSync(file)) throw new PeerscopeError('PEERSCOPE_ERR_INPUT', `${name}: no such recording in ${folder}`);
  return file;
}

/** A recording as the switching service holds it; the live session keeps running behind it. */
function shownSession(session: RecordingSession, live: LiveSession | undefined, onClose: () => void): LiveSession {
  return {
    service: session.service,
    label: session.label,
    ...(live?.portUrl !== undefined ? { portUrl: live.portUrl } : {}),
    // A host that closes the session it shows (the app switching clusters) closes the live one behind it too.
    async close() {
      session.close();
      onClose();
      await live?.close?.();
    },
  };
}
