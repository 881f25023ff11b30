// The application menu as data: a pure function of what the app shows (the local port, the discovery
// mode) and the actions it triggers, so it is tested without Electron.
import type { MenuItemConstructorOptions } from 'electron';
import type { DiscoveryMode } from '../../proxy-core/contract/settings.js';

export interface MenuState {
  /** The local port's address ("http://127.0.0.1:8001"), or undefined before it listens. */
  readonly portAddress: string | undefined;
  readonly discoveryMode: DiscoveryMode;
  readonly platform: NodeJS.Platform;
  readonly devTools: boolean;
  /** A read of audit log files is under way (it can be cancelled). */
  readonly auditReading?: boolean;
}

export interface MenuActions {
  openKubeconfig(): void;
  startSimulatedCluster(): void;
  exportSnapshot(): void;
  importSnapshot(): void;
  openAuditLog(): void;
  receiveAuditEvents(): void;
  cancelAuditRead(): void;
  toggleDiscoveryMode(): void;
  copyPortAddress(): void;
}

export function buildMenuTemplate(state: MenuState, actions: MenuActions): MenuItemConstructorOptions[] {
  const isMac = state.platform === 'darwin';
  const portLabel = state.portAddress ? `Local port: ${state.portAddress}` : 'Local port: not listening';
  const template: MenuItemConstructorOptions[] = [];
  if (isMac) template.push({ role: 'appMenu' });
  template.push({
    label: 'File',
    submenu: [
      { label: 'Open kubeconfig… / choose context', accelerator: 'CmdOrCtrl+O', click: () => actions.openKubeconfig() },
      { label: 'Start simulated cluster', click: () => actions.startSimulatedCluster() },
      { type: 'separator' },
      { label: 'Export snapshot…', accelerator: 'CmdOrCtrl+S', click: () => actions.exportSnapshot() },
      { label: 'Import snapshot…', click: () => actions.importSnapshot() },
      { type: 'separator' },
      // The cluster source: what the apiservers themselves answered, from their audit logs.
      { label: 'Open audit log…', click: () => actions.openAuditLog() },
      { label: 'Receive audit events…', click: () => actions.receiveAuditEvents() },
      { label: 'Cancel audit log read', enabled: state.auditReading === true, click: () => actions.cancelAuditRead() },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  });
  template.push({ role: 'editMenu' });
  template.push({
    label: 'Proxy',
    submenu: [
      // Shown, not clickable: the address an operator points kubectl at.
      { label: portLabel, enabled: false },
      {
        label: state.portAddress ? `Copy local port address (${state.portAddress})` : 'Copy local port address',
        enabled: state.portAddress !== undefined,
        accelerator: 'CmdOrCtrl+Shift+C',
        click: () => actions.copyPortAddress(),
      },
      { type: 'separator' },
      {
        label: 'Peer-aggregated discovery',
        type: 'checkbox',
        checked: state.discoveryMode === 'peer-aggregated',
        click: () => actions.toggleDiscoveryMode(),
      },
    ],
  });
  const viewItems: MenuItemConstructorOptions[] = [
    { role: 'reload' },
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  if (state.devTools) viewItems.push({ role: 'toggleDevTools' });
  template.push({ label: 'View', submenu: viewItems });
  template.push({ role: 'windowMenu' });
  return template;
}
