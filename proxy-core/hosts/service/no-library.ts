// The recordings folder's calls on a host that keeps none (`serve --ui`, a bare core service): asked
// what the folder holds, it answers null (every page asks: no folder is an answer, not a failure);
// every action refuses with PEERSCOPE_ERR_NO_LIBRARY. The app and `demo --ui` answer them (session/recordings-library.ts).
import type { CoreCalls } from '../../contract/client.js';
import { PeerscopeError } from '../../contract/errors.js';

export type LibraryCalls = Pick<
  CoreCalls,
  'getRecordings' | 'setRetention' | 'openRecording' | 'deleteRecording' | 'chooseRecordingFile' | 'leaveRecording'
>;

export function noLibraryCalls(): LibraryCalls {
  const refuse = () =>
    Promise.reject(
      new PeerscopeError('PEERSCOPE_ERR_NO_LIBRARY', 'this Peerscope keeps no recordings folder: the app and `peerscope demo --ui` do'),
    );
  return {
    getRecordings: async () => null,
    setRetention: refuse,
    openRecording: refuse,
    deleteRecording: refuse,
    chooseRecordingFile: refuse,
    leaveRecording: refuse,
  };
}
