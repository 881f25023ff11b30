// What the desktop app does for the operator, with Electron's dialogs, clipboard and menu injected:
// which cluster the core runs on (simulated or a kubeconfig's), the menu's actions, and the menu kept in
// step with the port and the discovery mode. main.ts wires the real Electron objects in; tests, fakes.
import type { MenuItemConstructorOptions } from 'electron';
import type { CoreEvent, DiscoveryMode, RoutingSnapshot } from '../../proxy-core/contract/index.js';
import type { SwitchableSession, SwitchingService } from '../../proxy-core/src/index.js';
import { buildMenuTemplate, type MenuActions } from './menu.js';

/** A running core the app can show: the simulated cluster or a real one. */
export interface AppSession extends SwitchableSession {
  /** The local port kubectl is pointed at. */
  readonly portUrl: string;
  close(): Promise<unknown>;
}

export interface AppDialogs {
  /** The chosen file, or undefined when the operator cancelled. */
  openFile(options: { title: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  saveFile(options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<string | undefined>;
  /** The index of the chosen button; `cancelId` when the operator closed the box. */
  choose(options: { title: string; message: string; buttons: string[]; defaultId: number; cancelId: number }): Promise<number>;
  error(title: string, message: string): void;
  info(title: string, message: string): void;
}

export interface AppControllerDeps {
  readonly service: SwitchingService;
  readonly startDemo: () => Promise<AppSession>;
  /** Loads the kubeconfig and finds the cluster's servers (errors here leave the running session alone); the result starts the port. */
  readonly prepareCluster: (kubeconfig: string, context: string | undefined) => Promise<() => Promise<AppSession>>;
  readonly contextNames: (kubeconfig: string) => { names: string[]; current?: string };
  readonly readSnapshot: (file: string) => RoutingSnapshot;
  readonly writeSnapshot: (file: string, snapshot: RoutingSnapshot) => void;
  readonly dialogs: AppDialogs;
  readonly copyText: (text: string) => void;
  readonly setMenu: (template: MenuItemConstructorOptions[]) => void;
  readonly platform: NodeJS.Platform;
  readonly devTools: boolean;
}

/** More contexts than this are not offered as buttons; the current context is used, and the box says so. */
const MAX_CONTEXT_BUTTONS = 8;

export interface AppController {
  readonly actions: MenuActions;
  /** Starts the simulated cluster (what the app shows on first start) and builds the menu. */
  start(): Promise<void>;
  /** Closes the current session. */
  close(): Promise<void>;
}

export function createAppController(deps: AppControllerDeps): AppController {
  const { service, dialogs } = deps;
  let discoveryMode: DiscoveryMode = 'peer-aggregated';
  let switching: Promise<void> = Promise.resolve();

  const session = () => service.current() as AppSession | undefined;
  const refreshMenu = () => {
    deps.setMenu(
      buildMenuTemplate({ portAddress: session()?.portUrl, discoveryMode, platform: deps.platform, devTools: deps.devTools }, actions),
    );
  };
  const showError = (title: string) => (err: unknown) => dialogs.error(title, err instanceof Error ? err.message : String(err));

  // The menu's checkbox follows the mode whoever changed it (menu, UI, another client of the core).
  const onEvent = (e: CoreEvent) => {
    if (e.type === 'settings' && e.settings.discoveryMode !== discoveryMode) {
      discoveryMode = e.settings.discoveryMode;
      refreshMenu();
    }
  };

  /** One switch at a time: the new session must own the port the old one gives up. */
  const switchTo = (start: () => Promise<AppSession>): Promise<void> => {
    switching = switching.then(async () => {
      const previous = session();
      // The port (default 8001) is held by the running session: close it first, then start the next.
      // If the next fails, the operator is told and the app comes back to the simulated cluster.
      if (previous) await previous.close();
      let next: AppSession;
      try {
        next = await start();
      } catch (err) {
        if (!previous) throw err;
        showError('Could not open the cluster')(err);
        next = await deps.startDemo();
      }
      service.switchTo(next);
      discoveryMode = (await next.service.getOverview()).discoveryMode;
      refreshMenu();
    });
    return switching;
  };

  const actions: MenuActions = {
    openKubeconfig() {
      void (async () => {
        const file = await dialogs.openFile({ title: 'Open kubeconfig', filters: [{ name: 'kubeconfig', extensions: ['*'] }] });
        if (!file) return;
        const { names, current } = deps.contextNames(file);
        let context: string | undefined;
        if (names.length > 1 && names.length <= MAX_CONTEXT_BUTTONS) {
          const defaultId = Math.max(0, names.indexOf(current ?? ''));
          const cancelId = names.length;
          const choice = await dialogs.choose({
            title: 'Choose context',
            message: `Which context of ${file}?`,
            buttons: [...names, 'Cancel'],
            defaultId,
            cancelId,
          });
          if (choice === cancelId) return;
          context = names[choice];
        }
        // Checked before the running session gives up the port: a broken kubeconfig or an unreachable
        // cluster leaves the operator where they were, with the error that names the file and line.
        const start = await deps.prepareCluster(file, context);
        await switchTo(start);
      })().catch(showError('Could not open the kubeconfig'));
    },
    startSimulatedCluster() {
      switchTo(() => deps.startDemo()).catch(showError('Could not start the simulated cluster'));
    },
    exportSnapshot() {
      void (async () => {
        const snapshot = await service.takeSnapshot();
        const stamp = snapshot.takenAt.replace(/[:.]/g, '-');
        const file = await dialogs.saveFile({
          title: 'Export routing snapshot',
          defaultPath: `peerscope-snapshot-${stamp}.json`,
          filters: [{ name: 'Routing snapshot', extensions: ['json'] }],
        });
        if (!file) return;
        deps.writeSnapshot(file, snapshot);
      })().catch(showError('Could not export the snapshot'));
    },
    importSnapshot() {
      void (async () => {
        const file = await dialogs.openFile({
          title: 'Import routing snapshot',
          filters: [{ name: 'Routing snapshot', extensions: ['json'] }],
        });
        if (!file) return;
        // Validated completely here; the window only ever receives a whole, valid snapshot.
        const snapshot = deps.readSnapshot(file);
        service.publish({ type: 'snapshot-opened', file: basename(file), snapshot });
      })().catch(showError('Could not import the snapshot'));
    },
    toggleDiscoveryMode() {
      const next = discoveryMode === 'peer-aggregated' ? 'nopeer' : 'peer-aggregated';
      service.setDiscoveryMode({ mode: next }).then((s) => {
        discoveryMode = s.discoveryMode;
        refreshMenu();
      }, showError('Could not change the discovery mode'));
    },
    copyPortAddress() {
      const url = session()?.portUrl;
      if (url) deps.copyText(url);
    },
  };

  let unsubscribe: (() => void) | undefined;
  return {
    actions,
    async start() {
      unsubscribe = service.subscribe(onEvent);
      refreshMenu();
      await switchTo(() => deps.startDemo());
    },
    async close() {
      unsubscribe?.();
      await switching.catch(() => undefined);
      await session()?.close();
    },
  };
}

function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}
