// The typed contract between the core and its hosts (renderer, Electron, CLI): plain serialisable
// types and the zod schemas that validate them at every boundary.
export * from './events.js';
export * from './servers.js';
export * from './reachability.js';
export * from './own-mvp.js';
export * from './server-metrics.js';
export * from './snapshot.js';
export * from './settings.js';
export * from './impact.js';
export * from './client.js';
export * from './errors.js';
export * from './rpc.js';
export * from './audit.js';
export * from './cluster.js';
export * from './version-priority.js';
export * from './discovery-view.js';
export * from './recording.js';
export * from './replay.js';
export * from './recording-window.js';
export * from './recordings.js';
export * from './snapshot-at.js';
