// The browser-mode UI for a running core (`peerscope demo --ui`, `serve --ui`): CoreClient over HTTP +
// SSE on a loopback port, serving the built renderer. Prints nothing itself; the caller prints the URL.
import { startUiServer } from '../ui-server/server.js';
import { createCoreService, type CoreService } from '../service/service.js';
import type { SimController } from '../service/sim-controller.js';
import type { Core } from '../../engine/core.js';
import type { RecordingImports } from '../ui-server/recording-upload.js';

export interface UiHost {
  /** Open this: it carries the per-launch token in its fragment. */
  readonly url: string;
  close(): Promise<void>;
}

/** Either a core (a service is made for it and closed with the host) or a session's own service. */
export type UiHostOptions = ({ core: Core; sim?: SimController } | { service: CoreService }) & {
  host?: string;
  port?: number;
  /** The recordings folder uploads go into (`demo --ui`). */
  recordings?: RecordingImports;
};

export async function startUiHost(options: UiHostOptions): Promise<UiHost> {
  const owned = 'core' in options ? createCoreService(options.core, options.sim ? { sim: options.sim } : {}) : undefined;
  const service = owned ?? (options as { service: CoreService }).service;
  try {
    const control = await startUiServer({
      service: service,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      ...(options.recordings ? { recordings: options.recordings } : {}),
    });
    return {
      url: control.url,
      async close() {
        await control.close();
        owned?.close();
      },
    };
  } catch (err) {
    owned?.close();
    throw err;
  }
}
