// The one BrowserWindow Peerscope opens. The renderer is treated as untrusted web content: it reaches
// the core only through the preload's `window.peerscope`, never through Node.
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

export function secureWebPreferences(preloadPath: string, devTools: boolean): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    // Packaged builds ship without devtools: an operator's machine holds cluster credentials.
    devTools,
    spellcheck: false,
  };
}

export function mainWindowOptions(preloadPath: string, devTools: boolean): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    title: 'Peerscope',
    // Shown on ready-to-show, so the operator never sees an empty white frame.
    show: false,
    backgroundColor: '#0f172a',
    webPreferences: secureWebPreferences(preloadPath, devTools),
  };
}
