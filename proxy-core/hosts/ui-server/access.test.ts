// The UI server on real sockets, who it refuses: no or wrong token, a foreign Origin or Host, anything a
// web page could send; and the CSP on every response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, type UiServer } from './server.js';
import { call, rpcCall, startUiHost, type UiHost } from '../../test/ui-host.js';

describe('UI server', () => {
  let control: UiServer;
  let uiHost: UiHost | undefined;
  const rpc = (method: string, args?: unknown, headers?: Record<string, string>) => rpcCall(control, method, args, headers);

  beforeAll(async () => {
    uiHost = await startUiHost();
    ({ control } = uiHost);
  });
  afterAll(() => uiHost?.close());

  it('prints a loopback URL with the token in its fragment', () => {
    expect(control.url).toBe(`http://127.0.0.1:${control.port}/#token=${control.token}`);
    expect(control.token.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses API calls without the token or with a wrong one', async () => {
    const missing = await call(control.port, '/api/rpc/getOverview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(401);
    const wrong = await rpc('getOverview', {}, { authorization: `Bearer ${control.token.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    const notBearer = await rpc('getOverview', {}, { authorization: control.token });
    expect(notBearer.status).toBe(401);
    const events = await call(control.port, '/api/events');
    expect(events.status).toBe(401);
  });

  it('routes a method whose name has digits to the core, and a name the contract lacks to a 404', async () => {
    // This host records nothing: the core's own refusal, not the server's "no such endpoint".
    const window = await rpc('getFalse404sForWindow', { from: 0, to: 1 });
    expect(JSON.parse(window.body)).toMatchObject({ error: { code: 'PEERSCOPE_ERR_NO_RECORDING' } });
    const unknown = await rpc('getNothing2', {});
    expect(unknown.status).toBe(404);
  });

  it('refuses a foreign Origin and a foreign Host, even with the token', async () => {
    const foreignOrigin = await rpc('getOverview', {}, { origin: 'http://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    const otherPort = await rpc('getOverview', {}, { origin: `http://127.0.0.1:${control.port + 1}` });
    expect(otherPort.status).toBe(403);
    const rebinding = await rpc('getOverview', {}, { host: `evil.example:${control.port}` });
    expect(rebinding.status).toBe(403);
    const pageFromRebinding = await call(control.port, '/', { headers: { host: 'evil.example' } });
    expect(pageFromRebinding.status).toBe(403);
    const crossSite = await rpc('getOverview', {}, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await rpc('getOverview', {}, { origin: `http://127.0.0.1:${control.port}`, 'sec-fetch-site': 'same-origin' });
    expect(sameOrigin.status).toBe(200);
  });

  it('refuses whatever a web page could send it, on every path and method, the token notwithstanding (issue 20)', async () => {
    const port = control.port;
    const marks: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'NULL' },
      { origin: `http://localhost:${port}` },
      { origin: `https://127.0.0.1:${port}` },
      { origin: `http://127.0.0.1:${port}, http://evil.example` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'Cross-Site' },
      { 'sec-fetch-site': 'same-origin, cross-site' },
      { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' },
    ];
    const asked: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string }> = [
      { method: 'GET', path: '/api/events' },
      { method: 'POST', path: '/api/rpc/setTrafficRate', headers: { 'content-type': 'application/json' }, body: '{"rps":500}' },
      { method: 'POST', path: '/api/rpc/setPolicy', headers: { 'content-type': 'text/plain' }, body: '{"policy":"random"}' },
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/index.html' },
      { method: 'OPTIONS', path: '/api/rpc/getOverview' },
      { method: 'PUT', path: '/api/rpc/getOverview' },
    ];
    for (const a of asked) {
      for (const mark of marks) {
        const r = await call(port, a.path, {
          method: a.method,
          headers: { authorization: `Bearer ${control.token}`, ...a.headers, ...mark },
          ...(a.body ? { body: a.body } : {}),
        });
        expect(r.status, `${a.method} ${a.path} ${JSON.stringify(mark)}`).toBe(403);
      }
    }
    // Without a token, a form's text/plain POST or another method gets nothing either.
    expect(
      (await call(port, '/api/rpc/setPolicy', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"policy":"random"}' }))
        .status,
    ).toBe(401);
    expect(
      (
        await call(port, '/api/rpc/setPolicy', {
          method: 'POST',
          headers: { authorization: `Bearer ${control.token}`, 'content-type': 'text/plain' },
          body: '{"policy":"random"}',
        })
      ).status,
    ).toBe(415);
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) expect((await call(port, '/', { method })).status, method).toBe(405);
    expect((await call(port, '/api/rpc/getOverview', { method: 'DELETE' })).status).toBe(401);
    // None of it changed a setting.
    expect((await rpc('getOverview')).status).toBe(200);
    expect(JSON.parse((await rpc('getOverview')).body)).toMatchObject({ policy: 'round-robin' });
    // The page itself, opened from the URL typed or clicked in a terminal, and its own calls pass.
    expect((await call(port, '/', { headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } })).status).toBe(200);
    expect((await rpc('getOverview', {}, { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(
      (
        await call(port, '/', {
          headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin' },
        })
      ).status,
    ).toBe(200);
  });

  it('serves the renderer with the strict CSP, and the CSP on API answers too', async () => {
    const page = await call(control.port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(eval|inline)/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<title>Peerscope</title>');
    const refused = await call(control.port, '/api/rpc/getOverview', { method: 'POST' });
    expect(refused.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const traversal = await call(control.port, '/..%2f..%2fetc%2fpasswd');
    expect(traversal.status).toBe(404);
  });
});
