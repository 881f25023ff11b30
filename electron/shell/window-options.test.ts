import { describe, expect, it } from 'vitest';
import { mainWindowOptions, secureWebPreferences } from './window-options.js';

describe('window options', () => {
  it('isolate the renderer from Node and keep web security on', () => {
    const prefs = secureWebPreferences('/app/dist/electron/preload.cjs', false);
    expect(prefs).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
    });
  });

  it('allow devtools only when asked (unpackaged builds)', () => {
    expect(secureWebPreferences('/p', true).devTools).toBe(true);
    expect(mainWindowOptions('/p', false).webPreferences?.devTools).toBe(false);
  });

  it('open the window hidden until its first paint, with the secure preferences', () => {
    const options = mainWindowOptions('/p.cjs', false);
    expect(options.show).toBe(false);
    expect(options.webPreferences).toEqual(secureWebPreferences('/p.cjs', false));
  });
});
