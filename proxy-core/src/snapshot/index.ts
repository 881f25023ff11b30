export { takeSnapshot, type TakeOptions } from './take.js';
export { parseSnapshot, readSnapshotFile, serializeSnapshot, writeSnapshotFile, MAX_SNAPSHOT_BYTES } from './io.js';
export { diffSnapshots, formatDiff } from './diff.js';
