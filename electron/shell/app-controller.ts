// What the desktop app does for the operator, with Electron's dialogs, clipboard and menu injected:
// which cluster the core runs on (simulated or a kubeconfig's), the menu's actions, and the menu kept in
// step with the port and the discovery mode. main.ts wires the real Electron objects in; tests, fakes.
import { MAX_CONTEXT_BUTTONS, type AppControllerDeps } from './app-deps.js';
import { auditSourceActions, basename } from './audit-source-actions.js';
import type { MenuActions } from './menu.js';
import { createSessionSwitcher } from './session-switcher.js';

export type { AppControllerDeps, AppDialogs, AppSession, ClusterSourceChoice, ReadProgress } from './app-deps.js';
export { AUDIT_WEBHOOK_PORT } from './app-deps.js';
export { serverOfFile } from './audit-source-actions.js';

export interface AppController {
  readonly actions: MenuActions;
  /** Starts the simulated cluster (what the app shows on first start) and builds the menu. */
  start(): Promise<void>;
  /** Closes the current session. */
  close(): Promise<void>;
}

export function createAppController(deps: AppControllerDeps): AppController {
  const { service, dialogs } = deps;
  const switcher = createSessionSwitcher(deps, () => actions);
  const { showError } = switcher;

  /** The context to open: the only one, the operator's choice among a few, or the current; null when cancelled. */
  const chooseContext = async (file: string): Promise<string | undefined | null> => {
    const { names, current } = deps.contextNames(file);
    if (names.length <= 1 || names.length > MAX_CONTEXT_BUTTONS) return undefined;
    const cancelId = names.length;
    const choice = await dialogs.choose({
      title: 'Choose context',
      message: `Which context of ${file}?`,
      buttons: [...names, 'Cancel'],
      defaultId: Math.max(0, names.indexOf(current ?? '')),
      cancelId,
    });
    return choice === cancelId ? null : names[choice];
  };

  const actions: MenuActions = {
    openKubeconfig() {
      void (async () => {
        const file = await dialogs.openFile({ title: 'Open kubeconfig', filters: [{ name: 'kubeconfig', extensions: ['*'] }] });
        if (!file) return;
        const context = await chooseContext(file);
        if (context === null) return;
        // Checked before the running session gives up the port: a broken kubeconfig or an unreachable
        // cluster leaves the operator where they were, with the error that names the file and line.
        const start = await deps.prepareCluster(file, context);
        await switcher.switchTo(start, { kubeconfig: file, context, source: {} });
      })().catch(showError('Could not open the kubeconfig'));
    },
    startSimulatedCluster() {
      switcher.switchTo(() => deps.startDemo()).catch(showError('Could not start the simulated cluster'));
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
    ...auditSourceActions(deps, switcher),
    cancelAuditRead() {
      service.cancelAuditRead().then(() => switcher.watchAuditRead(), showError('Could not cancel the read'));
    },
    toggleDiscoveryMode() {
      const next = switcher.discoveryMode() === 'peer-aggregated' ? 'nopeer' : 'peer-aggregated';
      service
        .setDiscoveryMode({ mode: next })
        .then((s) => switcher.setDiscoveryMode(s.discoveryMode), showError('Could not change the discovery mode'));
    },
    copyPortAddress() {
      const url = switcher.session()?.portUrl;
      if (url) deps.copyText(url);
    },
  };

  let unsubscribe: (() => void) | undefined;
  return {
    actions,
    async start() {
      unsubscribe = switcher.follow();
      switcher.refreshMenu();
      await switcher.switchTo(() => deps.startDemo());
    },
    async close() {
      unsubscribe?.();
      await switcher.close();
    },
  };
}
