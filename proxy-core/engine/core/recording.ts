// The session's recording as the core starts it: fed by the port's telemetry, the cluster source and
// the server set, and told of the settings (as they start, then each switch).
import type { ServerSet } from '../cluster/server-set.js';
import type { RouteState } from '../proxy/route-state.js';
import { recordSession, type RecordedParts, type RecordingFeed, type RecordOptions } from '../recording/feed.js';
import type { PortSettings } from './settings.js';

export function startRecording(
  options: RecordOptions | undefined,
  parts: Omit<RecordedParts, 'routeTable' | 'servers'> & { readonly servers: ServerSet; readonly routes: RouteState },
  settings: PortSettings,
): RecordingFeed | undefined {
  if (!options) return undefined;
  const { routes, ...fed } = parts;
  const recording = recordSession(options, { ...fed, routeTable: () => routes.table });
  settings.recordInto(recording);
  return recording;
}
