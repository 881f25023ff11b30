// Session and web-contents guards: no permission is ever granted, the window never leaves the app
// origin, and no new window opens (an allowed documentation link goes to the system browser instead).
import type { Session, WebContents } from 'electron';
import { isAppUrl } from './app-url.js';
import { openExternalSafely, type OpenExternal } from './external-links.js';

type PermissionSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;
type RequestSession = { readonly webRequest: Pick<Session['webRequest'], 'onBeforeRequest'> };

/**
 * The app's pages load from the app origin only. The CSP already says so; this holds even for content
 * the CSP does not cover (a stray frame, a devtools-opened page): nothing the app shows can reach the
 * local port, the cluster or the network. Devtools' own pages are left to devtools (unpackaged builds).
 * Navigation elsewhere is stopped before this (guardWebContents).
 */
function mayLoad(url: string): boolean {
  // data: is inline content, not a request anywhere (the CSP allows data: images); a blob: URL made
  // by the app's own page (a snapshot download) names the app origin inside it.
  return isAppUrl(url) || url.startsWith('devtools://') || url.startsWith('data:') || (url.startsWith('blob:') && isAppUrl(url.slice(5)));
}

export function restrictRequests(session: RequestSession): void {
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !mayLoad(details.url) });
  });
}

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
