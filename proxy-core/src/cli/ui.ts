// The browser-mode UI for a running core (`peerscope demo --ui`): CoreClient over HTTP + SSE on a
// loopback port, serving the built renderer. Prints nothing itself; the caller prints the URL.
import { startControlServer } from '../control/server.js';
import { createCoreService } from '../control/service.js';
import type { SimController } from '../control/sim-controller.js';
import type { Core } from '../core.js';

export interface UiHost {
  /** Open this: it carries the per-launch token in its fragment. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startUiHost(options: { core: Core; sim?: SimController; host?: string; port?: number }): Promise<UiHost> {
  const service = createCoreService(options.core, options.sim ? { sim: options.sim } : {});
  try {
    const control = await startControlServer({ client: service, host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    return {
      url: control.url,
      async close() {
        await control.close();
        service.close();
      },
    };
  } catch (err) {
    service.close();
    throw err;
  }
}
