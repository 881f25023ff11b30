// Session and web-contents guards: no permission is ever granted, the window never leaves the app
// origin, and no new window opens (an allowed documentation link goes to the system browser instead).
import type { Session, WebContents } from 'electron';
import { isAppUrl } from './app-url.js';
import { openExternalSafely, type OpenExternal } from './external-links.js';

type PermissionSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;

export function denyAllPermissions(session: PermissionSession): void {
  // Camera, notifications, clipboard, HID…: nothing Peerscope shows needs one.
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

type GuardedWebContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

export function guardWebContents(contents: GuardedWebContents, openExternal: OpenExternal): void {
  const keepInApp = (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', keepInApp);
  contents.on('will-redirect', keepInApp);
  contents.on('will-frame-navigate', (event) => keepInApp(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // target=_blank documentation links: the system browser, when allow-listed; never a new window.
    void openExternalSafely(url, openExternal).catch(() => undefined);
    return { action: 'deny' };
  });
}
