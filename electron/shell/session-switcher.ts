// The app's one running session and how it changes: one switch at a time (the next session must own
// the port the last one gives up), back to the simulated cluster when the next fails, and the menu kept
// in step with the port, the discovery mode and a read of audit logs under way.
import type { CoreEvent, DiscoveryMode } from '../../proxy-core/contract/index.js';
import type { AppControllerDeps, AppSession, OpenedCluster } from './app-deps.js';
import { buildMenuTemplate, type MenuActions } from './menu.js';

export interface SessionSwitcher {
  /** The session shown now; undefined before the first. */
  session(): AppSession | undefined;
  /** The kubeconfig cluster shown, with its cluster source; undefined on the simulated cluster. */
  opened(): OpenedCluster | undefined;
  discoveryMode(): DiscoveryMode;
  setDiscoveryMode(mode: DiscoveryMode): void;
  /** Starts `start`'s session in place of the running one. `cluster`: what it shows (none: the simulated one). */
  switchTo(start: () => Promise<AppSession>, cluster?: OpenedCluster): Promise<void>;
  /** Follows a read of audit log files while it runs: the window's progress bar and the menu's Cancel. */
  watchAuditRead(): void;
  /** Builds the menu again from the state now. */
  refreshMenu(): void;
  /** An error box titled `title`, for a promise's rejection. */
  showError(title: string): (err: unknown) => void;
  /** Keeps the menu's discovery checkbox on the mode whoever changed it; returns the unsubscribe. */
  follow(): () => void;
  /** Waits for a switch under way, stops the progress bar and closes the session. */
  close(): Promise<void>;
}

export function createSessionSwitcher(deps: AppControllerDeps, actions: () => MenuActions): SessionSwitcher {
  const { service, dialogs } = deps;
  let discoveryMode: DiscoveryMode = 'peer-aggregated';
  let switching: Promise<void> = Promise.resolve();
  let opened: OpenedCluster | undefined;
  let auditReading = false;
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const session = () => service.current() as AppSession | undefined;
  const refreshMenu = () => {
    deps.setMenu(
      buildMenuTemplate(
        { portAddress: session()?.portUrl, discoveryMode, platform: deps.platform, devTools: deps.devTools, auditReading },
        actions(),
      ),
    );
  };
  const showError = (title: string) => (err: unknown) => dialogs.error(title, err instanceof Error ? err.message : String(err));

  const watchAuditRead = () => {
    clearTimeout(progressTimer);
    const tick = async () => {
      let read: NonNullable<Awaited<ReturnType<typeof service.getOverview>>['cluster']>['read'];
      try {
        read = (await service.getOverview()).cluster?.read;
      } catch {
        read = undefined;
      }
      if (closed) return;
      const reading = read?.state === 'reading';
      deps.setProgress?.(reading ? { fraction: read?.bytesTotal ? Math.min(1, read.bytesRead / read.bytesTotal) : null } : undefined);
      if (reading !== auditReading) {
        auditReading = reading;
        refreshMenu();
      }
      if (reading) progressTimer = setTimeout(() => void tick(), deps.progressIntervalMs ?? 500);
    };
    void tick();
  };

  const switchTo = (start: () => Promise<AppSession>, cluster?: OpenedCluster): Promise<void> => {
    switching = switching.then(async () => {
      const previous = session();
      // The port (default 8001) is held by the running session: close it first, then start the next.
      // If the next fails, the operator is told and the app comes back to the simulated cluster.
      if (previous) await previous.close();
      let next: AppSession;
      try {
        next = await start();
        opened = cluster;
      } catch (err) {
        if (!previous) throw err;
        showError('Could not open the cluster')(err);
        next = await deps.startDemo();
        opened = undefined;
      }
      service.switchTo(next);
      discoveryMode = (await next.service.getOverview()).discoveryMode;
      refreshMenu();
      watchAuditRead();
    });
    return switching;
  };

  const onEvent = (e: CoreEvent) => {
    if (e.type === 'settings' && e.settings.discoveryMode !== discoveryMode) {
      discoveryMode = e.settings.discoveryMode;
      refreshMenu();
    }
  };

  return {
    session,
    opened: () => opened,
    discoveryMode: () => discoveryMode,
    setDiscoveryMode(mode) {
      discoveryMode = mode;
      refreshMenu();
    },
    switchTo,
    watchAuditRead,
    refreshMenu,
    showError,
    follow: () => service.subscribe(onEvent),
    async close() {
      closed = true;
      clearTimeout(progressTimer);
      deps.setProgress?.(undefined);
      await switching.catch(() => undefined);
      await session()?.close();
    },
  };
}
