import { describe, expect, it, vi } from 'vitest';
import type { BrowserWindowConstructorOptions } from 'electron';
import { startShell, type ShellDeps, type ShellWindow } from './app-shell.js';
import { FakeWebContents } from '../test/fakes.js';

function fakeWindow() {
  const contents = new FakeWebContents();
  const handlers = new Map<string, () => void>();
  const window = {
    webContents: contents,
    loadURL: vi.fn(async () => undefined),
    show: vi.fn(),
    focus: vi.fn(),
    restore: vi.fn(),
    isMinimized: vi.fn(() => true),
    once: vi.fn((event: string, l: () => void) => handlers.set(event, l)),
    on: vi.fn((event: string, l: () => void) => handlers.set(event, l)),
  };
  return { window, contents, fire: (event: string) => handlers.get(event)?.() };
}

function fakeDeps(options: { lock?: boolean; packaged?: boolean } = {}) {
  const calls: string[] = [];
  const appListeners = new Map<string, (...args: unknown[]) => void>();
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => {
    resolveReady = r;
  });
  const win = fakeWindow();
  let windowOptions: BrowserWindowConstructorOptions | undefined;
  const session = { setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn(), webRequest: { onBeforeRequest: vi.fn() } };
  const deps = {
    app: {
      isPackaged: options.packaged ?? false,
      enableSandbox: vi.fn(() => calls.push('enableSandbox')),
      requestSingleInstanceLock: vi.fn(() => {
        calls.push('lock');
        return options.lock ?? true;
      }),
      quit: vi.fn(() => calls.push('quit')),
      whenReady: vi.fn(() => {
        calls.push('whenReady');
        return ready;
      }),
      on: vi.fn((event: string, l: (...args: unknown[]) => void) => appListeners.set(event, l)),
    },
    protocol: {
      registerSchemesAsPrivileged: vi.fn(() => calls.push('registerSchemesAsPrivileged')),
      handle: vi.fn(() => calls.push('protocol.handle')),
    },
    defaultSession: () => session,
    openExternal: vi.fn(async () => undefined),
    createWindow: vi.fn((o: BrowserWindowConstructorOptions) => {
      windowOptions = o;
      calls.push('createWindow');
      return win.window as unknown as ShellWindow;
    }),
    preloadPath: '/dist/electron/preload.cjs',
    rendererDir: '/dist/renderer',
  } satisfies ShellDeps;
  return { deps, calls, appListeners, resolveReady, win, session, windowOptions: () => windowOptions };
}

describe('startShell', () => {
  it('enables the sandbox and registers the scheme before ready, then opens the guarded window on peerscope://app/', async () => {
    const f = fakeDeps();
    const started = startShell(f.deps);
    await Promise.resolve();
    expect(f.calls).toEqual(['enableSandbox', 'registerSchemesAsPrivileged', 'lock', 'whenReady']);
    f.resolveReady();
    const result = await started;
    expect(result.started).toBe(true);
    expect(f.calls.slice(4)).toEqual(['protocol.handle', 'createWindow']);
    expect(f.session.setPermissionRequestHandler).toHaveBeenCalled();
    expect(f.session.setPermissionCheckHandler).toHaveBeenCalled();
    expect(f.session.webRequest.onBeforeRequest).toHaveBeenCalled();
    expect(f.windowOptions()?.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      preload: '/dist/electron/preload.cjs',
      devTools: true,
    });
    expect(f.win.window.loadURL).toHaveBeenCalledWith('peerscope://app/');
    expect(f.win.contents.windowOpenHandler).toBeDefined();
    expect(f.win.contents.navigate('will-navigate', 'https://example.com/')).toBe(true);
    f.win.fire('ready-to-show');
    expect(f.win.window.show).toHaveBeenCalled();
  });

  it('quits without a window when another instance holds the lock', async () => {
    const f = fakeDeps({ lock: false });
    const result = await startShell(f.deps);
    expect(result.started).toBe(false);
    expect(f.deps.app.quit).toHaveBeenCalled();
    expect(f.deps.createWindow).not.toHaveBeenCalled();
    expect(f.deps.app.whenReady).not.toHaveBeenCalled();
  });

  it('focuses (and restores) the window when a second instance starts', async () => {
    const f = fakeDeps();
    f.resolveReady();
    await startShell(f.deps);
    f.appListeners.get('second-instance')!();
    expect(f.win.window.restore).toHaveBeenCalled();
    expect(f.win.window.focus).toHaveBeenCalled();
  });

  it('turns devtools off in packaged builds', async () => {
    const f = fakeDeps({ packaged: true });
    f.resolveReady();
    await startShell(f.deps);
    expect(f.windowOptions()?.webPreferences?.devTools).toBe(false);
  });

  it('guards every web contents created later', async () => {
    const f = fakeDeps();
    f.resolveReady();
    await startShell(f.deps);
    const other = new FakeWebContents();
    f.appListeners.get('web-contents-created')!({}, other);
    expect(other.navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(other.windowOpenHandler).toBeDefined();
  });
});
