export { startDemoSession, portKubeconfig, type DemoSession, type DemoSessionOptions } from './demo.js';
export {
  startClusterSession,
  prepareClusterSession,
  kubeconfigContextNames,
  type ClusterSession,
  type PreparedCluster,
  type ClusterSessionOptions,
} from './cluster.js';
export { createSwitchingService, type SwitchingService, type SwitchableSession } from './switching-service.js';
export { createRecordingsLibrary, type RecordingsLibrary } from './recordings-library.js';
export {
  openRecordingSession,
  recordingReaderCalls,
  type ReaderCall,
  type ReaderCalls,
  type RecordingSession,
} from './recording-session.js';
export { newRecordingName, xdgRecordingsFolder } from './recordings-folder.js';
