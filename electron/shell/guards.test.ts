import { describe, expect, it, vi } from 'vitest';
import type { WebContents } from 'electron';
import { denyAllPermissions, guardWebContents, restrictRequests } from './guards.js';
import { FakeWebContents } from '../test/fakes.js';

const asWebContents = (fake: FakeWebContents) => fake as unknown as Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

describe('permissions', () => {
  it('deny every request and every check', () => {
    let requestHandler: ((wc: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
    let checkHandler: ((...args: unknown[]) => boolean) | undefined;
    const session = {
      setPermissionRequestHandler: vi.fn((h) => {
        requestHandler = h;
      }),
      setPermissionCheckHandler: vi.fn((h) => {
        checkHandler = h;
      }),
    };
    denyAllPermissions(session);
    for (const permission of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal']) {
      const callback = vi.fn();
      requestHandler!(null, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(checkHandler!(null, permission, 'peerscope://app', {})).toBe(false);
    }
  });
});

describe('navigation and new windows', () => {
  it('stay on the app origin', () => {
    const contents = new FakeWebContents();
    guardWebContents(asWebContents(contents), vi.fn());
    expect(contents.navigate('will-navigate', 'peerscope://app/index.html')).toBe(false);
    expect(contents.navigate('will-navigate', 'https://kubernetes.io/')).toBe(true);
    expect(contents.navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.navigate('will-navigate', 'peerscope://evil/')).toBe(true);
    expect(contents.navigate('will-redirect', 'http://127.0.0.1:8001/')).toBe(true);
    expect(contents.navigate('will-frame-navigate', 'https://example.com/')).toBe(true);
    expect(contents.navigate('will-attach-webview', 'peerscope://app/')).toBe(true);
  });

  it('never open a window; allow-listed links go to the system browser', async () => {
    const openExternal = vi.fn(async () => undefined);
    const contents = new FakeWebContents();
    guardWebContents(asWebContents(contents), openExternal);
    const open = (url: string) => contents.windowOpenHandler!({ url } as Parameters<NonNullable<FakeWebContents['windowOpenHandler']>>[0]);
    expect(open('https://kubernetes.io/docs/')).toEqual({ action: 'deny' });
    expect(open('https://evil.example/')).toEqual({ action: 'deny' });
    expect(open('peerscope://app/other')).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(openExternal).toHaveBeenCalledTimes(1));
    expect(openExternal).toHaveBeenCalledWith('https://kubernetes.io/docs/');
  });
});

describe("requests of the app's pages", () => {
  it('go to the app origin only: never the local port, the cluster or the network', () => {
    let listener: ((details: { url: string }, callback: (r: { cancel: boolean }) => void) => void) | undefined;
    restrictRequests({
      webRequest: {
        onBeforeRequest: vi.fn((l) => {
          listener = l;
        }),
      },
    } as unknown as Parameters<typeof restrictRequests>[0]);
    const cancelled = (url: string) => {
      let answer: boolean | undefined;
      listener!({ url }, (r) => (answer = r.cancel));
      return answer;
    };
    expect(cancelled('peerscope://app/assets/index.js')).toBe(false);
    expect(cancelled('devtools://devtools/bundled/inspector.html')).toBe(false);
    expect(cancelled('blob:peerscope://app/5b1f0c2e-0000-4000-8000-000000000000')).toBe(false);
    expect(cancelled('data:image/svg+xml,<svg/>')).toBe(false);
    for (const url of [
      'http://127.0.0.1:8001/api/v1/secrets',
      'ws://127.0.0.1:8001/api/v1/namespaces/d/pods/p/exec',
      'https://evil.example/',
      'peerscope://evil/',
      'file:///etc/passwd',
      'blob:https://evil.example/x',
      'chrome://gpu',
    ]) {
      expect(cancelled(url), url).toBe(true);
    }
  });
});
