// The contract's calls on the session's recording: its timeline and the state at a moment, read from
// the file the core records into while it is written (SQLite's write-ahead log lets a reader read
// alongside the writer). One reader is opened on first use and closed with the service.
import { PeerscopeError } from '../../contract/errors.js';
import type { CoreCalls } from '../../contract/client.js';
import { getStateAtArgsSchema } from '../../contract/recording.js';
import type { Core } from '../../engine/core.js';
import { RecordingReader } from '../../engine/recording/reader.js';
import { stateAt, timelineOf } from '../../engine/recording/state-at.js';
import { takeSnapshotAtArgsSchema } from '../../contract/snapshot-at.js';
import { snapshotAt } from './snapshot-at.js';

export type RecordingCalls = Pick<CoreCalls, 'getRecordingTimeline' | 'getStateAt' | 'takeSnapshotAt'> & {
  /** The session's recording, opened on first use (replay and the window calls read it); PEERSCOPE_ERR_NO_RECORDING when the session records nothing. */
  reader(): RecordingReader;
  close(): void;
};

export function recordingCalls(core: Pick<Core, 'recordingFile' | 'serverStatuses'>): RecordingCalls {
  let reader: RecordingReader | undefined;
  const open = (): RecordingReader => {
    const file = core.recordingFile();
    if (!file)
      throw new PeerscopeError(
        'PEERSCOPE_ERR_NO_RECORDING',
        'this session is not recorded: start it with `serve --record FILE` (the demo records by default)',
      );
    if (reader?.file !== file) {
      reader?.close();
      reader = RecordingReader.open(file);
    }
    return reader;
  };
  return {
    reader: open,
    async getRecordingTimeline() {
      // Asked by every page to know whether to offer a time control: no recording is an answer, not a failure.
      return core.recordingFile() ? timelineOf(open()) : null;
    },
    async getStateAt(args) {
      const { at } = getStateAtArgsSchema.parse(args);
      const live = new Map(core.serverStatuses().map((s) => [s.name, s]));
      return stateAt(open(), at, (name) => live.get(name));
    },
    async takeSnapshotAt(args) {
      const { at } = takeSnapshotAtArgsSchema.parse(args);
      const live = new Map(core.serverStatuses().map((s) => [s.name, s]));
      return snapshotAt(open(), at, { known: (name) => live.get(name) });
    },
    close() {
      reader?.close();
      reader = undefined;
    },
  };
}
