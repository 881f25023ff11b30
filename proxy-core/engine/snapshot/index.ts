export { takeSnapshot, type TakeOptions } from './take.js';
export {
  parseSnapshot,
  readSnapshotFile,
  readSnapshotText,
  serializeSnapshot,
  snapshotReadError,
  writeSnapshotFile,
  MAX_SNAPSHOT_BYTES,
  SnapshotFileError,
} from './io.js';
export { diffSnapshots, formatDiff } from './diff.js';
