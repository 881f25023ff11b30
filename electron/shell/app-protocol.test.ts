import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appSchemePrivileges, createAppProtocolHandler, registerAppProtocol, safeSegments } from './app-protocol.js';
import { CONTENT_SECURITY_POLICY } from './app-url.js';

let base: string;
let root: string;
let handler: ReturnType<typeof createAppProtocolHandler>;
const get = (url: string) => handler({ url, method: 'GET' });

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'peerscope-protocol-'));
  root = join(base, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Peerscope</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'my file.css'), 'body{}');
  writeFileSync(join(base, 'secret.txt'), 'kubeconfig token');
  symlinkSync(join(base, 'secret.txt'), join(root, 'escape.txt'));
  symlinkSync(join(root, 'assets', 'app.js'), join(root, 'inside-link.js'));
  handler = createAppProtocolHandler(root);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('peerscope://app protocol', () => {
  it('registers a standard, secure scheme that does not bypass CSP', () => {
    const [scheme] = appSchemePrivileges();
    expect(scheme).toMatchObject({ scheme: 'peerscope', privileges: { standard: true, secure: true, bypassCSP: false } });
  });

  it('serves index.html at the root and files under it, with their content type', async () => {
    const index = await get('peerscope://app/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<title>Peerscope</title>');
    const script = await get('peerscope://app/assets/app.js?v=1#x');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log(1)');
    expect((await get('peerscope://app/assets/my%20file.css')).status).toBe(200);
    expect((await get('peerscope://app/inside-link.js')).status).toBe(200);
  });

  it.each([
    'peerscope://app/../secret.txt',
    'peerscope://app/assets/../../secret.txt',
    'peerscope://app/%2e%2e/secret.txt',
    'peerscope://app/%2E%2E/secret.txt',
    'peerscope://app/.%2e/secret.txt',
    'peerscope://app/assets%2f..%2f..%2fsecret.txt',
    'peerscope://app/..%5csecret.txt',
    'peerscope://app//etc/passwd',
    'peerscope://app/%2fetc%2fpasswd',
    'peerscope://app/C:%5cWindows%5cwin.ini',
    'peerscope://app/escape.txt',
    'peerscope://app/assets',
    'peerscope://app/missing.js',
    'peerscope://app/%00',
    'peerscope://app/%E0%A4%A',
    'peerscope://other/index.html',
    'peerscope://app.evil/index.html',
    'https://app/index.html',
  ])('answers 404 to %s', async (url) => {
    const response = await get(url);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('kubeconfig token');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('sets the strict CSP and nosniff on every response', async () => {
    for (const url of ['peerscope://app/', 'peerscope://app/assets/app.js', 'peerscope://app/nope']) {
      const response = await get(url);
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('refuses methods other than GET and HEAD', async () => {
    expect((await handler({ url: 'peerscope://app/', method: 'POST' })).status).toBe(405);
    const head = await handler({ url: 'peerscope://app/', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('decodes segments but never lets one contain a separator', () => {
    expect(safeSegments('peerscope://app/a/b%20c/d.js')).toEqual(['a', 'b c', 'd.js']);
    expect(safeSegments('peerscope://app/a%2fb')).toBeUndefined();
  });

  it('is registered with protocol.handle for the peerscope scheme', async () => {
    const handle = vi.fn();
    registerAppProtocol({ handle }, root);
    expect(handle).toHaveBeenCalledWith('peerscope', expect.any(Function));
    const registered = handle.mock.calls[0]![1] as (r: { url: string; method: string }) => Promise<Response>;
    expect((await registered({ url: 'peerscope://app/', method: 'GET' })).status).toBe(200);
  });
});
