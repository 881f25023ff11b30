// The app's lifecycle with every Electron collaborator injected (main.ts passes the real ones, tests
// pass fakes): sandbox and scheme privileges before ready, one instance, the guarded window.
import type { App, BrowserWindowConstructorOptions, Protocol, Session, Shell, WebContents } from 'electron';
import { APP_ENTRY_URL } from './app-url.js';
import { appSchemePrivileges, registerAppProtocol } from './app-protocol.js';
import { denyAllPermissions, guardWebContents, restrictRequests } from './guards.js';
import { mainWindowOptions } from './window-options.js';

export interface ShellWindow {
  readonly webContents: Pick<WebContents, 'on' | 'setWindowOpenHandler' | 'send' | 'isDestroyed'>;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
}

export interface ShellDeps {
  readonly app: Pick<App, 'enableSandbox' | 'requestSingleInstanceLock' | 'quit' | 'whenReady' | 'isPackaged'> & {
    on(event: 'second-instance' | 'window-all-closed', listener: () => void): unknown;
    on(event: 'web-contents-created', listener: (event: unknown, contents: ShellWindow['webContents']) => void): unknown;
  };
  readonly protocol: Pick<Protocol, 'registerSchemesAsPrivileged' | 'handle'>;
  readonly defaultSession: () => Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'> & {
    readonly webRequest: Pick<Session['webRequest'], 'onBeforeRequest'>;
  };
  readonly openExternal: Shell['openExternal'];
  readonly createWindow: (options: BrowserWindowConstructorOptions) => ShellWindow;
  readonly preloadPath: string;
  readonly rendererDir: string;
  /** Called once the window exists: IPC, menu, core. */
  readonly onWindow?: (window: ShellWindow) => void | Promise<void>;
}

export type ShellStart = { readonly started: false } | { readonly started: true; readonly window: ShellWindow };

export async function startShell(deps: ShellDeps): Promise<ShellStart> {
  const { app } = deps;
  // Both must happen before 'ready': Electron ignores them afterwards.
  app.enableSandbox();
  deps.protocol.registerSchemesAsPrivileged(appSchemePrivileges());

  if (!app.requestSingleInstanceLock()) {
    // Another Peerscope already runs (and owns the local port): it gets focused, this one leaves.
    app.quit();
    return { started: false };
  }

  let window: ShellWindow | undefined;
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  // Every web contents, not only the main window's: a stray frame or devtools-opened page is guarded too.
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, deps.openExternal));

  await app.whenReady();
  denyAllPermissions(deps.defaultSession());
  restrictRequests(deps.defaultSession());
  registerAppProtocol(deps.protocol, deps.rendererDir);

  const devTools = !app.isPackaged;
  window = deps.createWindow(mainWindowOptions(deps.preloadPath, devTools));
  guardWebContents(window.webContents, deps.openExternal);
  const shown = window;
  window.once('ready-to-show', () => shown.show());
  window.on('closed', () => {
    window = undefined;
  });
  await deps.onWindow?.(shown);
  await shown.loadURL(APP_ENTRY_URL);
  return { started: true, window: shown };
}
