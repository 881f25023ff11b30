// CoreClient in the desktop app: Electron's preload exposes it as `window.peerscope` (IPC). The page
// still checks every answer and event against the contract, as the HTTP transport does: a mismatch
// between a newer main process and this page shows as an error, not as a broken screen.
import { coreClientMethods, coreEventSchema, type CoreClient } from '../../../proxy-core/contract/index.js';

/** The preload's CoreClient, when this page runs in the desktop app. */
export function bridgedCoreClient(): CoreClient | undefined {
  const candidate = (globalThis as { peerscope?: unknown }).peerscope;
  return candidate && typeof candidate === 'object' && typeof (candidate as CoreClient).subscribe === 'function' ? (candidate as CoreClient) : undefined;
}

export function validatingClient(raw: CoreClient): CoreClient {
  const checked = <M extends keyof typeof coreClientMethods>(method: M) =>
    async (...args: unknown[]) => coreClientMethods[method].result.parse(await (raw[method] as (...a: unknown[]) => Promise<unknown>)(...args));
  return {
    getOverview: checked('getOverview') as CoreClient['getOverview'],
    getRouteTable: checked('getRouteTable') as CoreClient['getRouteTable'],
    getEvents: checked('getEvents') as CoreClient['getEvents'],
    getHealthHistory: checked('getHealthHistory') as CoreClient['getHealthHistory'],
    getDiscoveryViews: checked('getDiscoveryViews') as CoreClient['getDiscoveryViews'],
    setDiscoveryMode: checked('setDiscoveryMode') as CoreClient['setDiscoveryMode'],
    setPolicy: checked('setPolicy') as CoreClient['setPolicy'],
    takeSnapshot: checked('takeSnapshot') as CoreClient['takeSnapshot'],
    readSnapshot: checked('readSnapshot') as CoreClient['readSnapshot'],
    compareSnapshots: checked('compareSnapshots') as CoreClient['compareSnapshots'],
    getImpactReport: checked('getImpactReport') as CoreClient['getImpactReport'],
    startRollout: checked('startRollout') as CoreClient['startRollout'],
    pauseRollout: checked('pauseRollout') as CoreClient['pauseRollout'],
    setTrafficRate: checked('setTrafficRate') as CoreClient['setTrafficRate'],
    subscribe(listener) {
      return raw.subscribe((event) => {
        const parsed = coreEventSchema.safeParse(event);
        if (parsed.success) listener(parsed.data);
      });
    },
  };
}
