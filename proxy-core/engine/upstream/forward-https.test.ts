// forward() over HTTPS: the upstream verified against its CA and servername, end-to-end headers relayed
// and hop-by-hop ones dropped, the client's own Authorization kept, token refresh after a 401.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ForwardResult } from './forward.js';
import { Upstreams } from './pool.js';
import { send, startHttpsUpstream, startProxy } from '../../test/upstream-fixtures.js';
import { ROUTE, UNAVAILABLE, statusOf, useForwardFixtures } from '../../test/forward-fixtures.js';

const { tls, cleanups, setUp } = useForwardFixtures();

describe('forward over HTTPS', () => {
  it('relays a GET verified against the CA, with end-to-end headers, Warning, and without hop-by-hop headers', async () => {
    let seen: IncomingHttpHeaders = {};
    const { proxy } = await setUp(
      (req, res) => {
        seen = req.headers;
        res.setHeader('content-type', 'application/json');
        res.setHeader('warning', ['299 - "first deprecated"', '299 - "second deprecated"']);
        res.setHeader('connection', 'x-upstream-hop');
        res.setHeader('x-upstream-hop', 'must not reach the client');
        res.setHeader('keep-alive', 'timeout=99');
        res.setHeader('audit-id', 'abc');
        res.end('{"kind":"ConfigMap"}');
      },
      { token: 'core-token', forward: { forward: { responseHeaders: ROUTE, addRequestHeaders: { 'x-kubernetes-peer-proxied': 'true' } } } },
    );

    const answer = await send(`${proxy.url}/api/v1/namespaces/d/configmaps/x?resourceVersion=0`, {
      headers: {
        connection: 'keep-alive, x-client-hop',
        'x-client-hop': 'must not reach the upstream',
        'proxy-authorization': 'Basic c2VjcmV0',
        te: 'trailers',
        'keep-alive': 'timeout=5',
        accept: 'application/json',
        'impersonate-user': 'jane',
      },
    });

    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"kind":"ConfigMap"}');
    const warnings = answer.rawHeaders.filter((_, i) => i % 2 === 0 && answer.rawHeaders[i]?.toLowerCase() === 'warning').length;
    expect(warnings).toBe(2);
    expect(answer.headers.warning).toBe('299 - "first deprecated", 299 - "second deprecated"');
    expect(answer.headers['audit-id']).toBe('abc');
    expect(answer.headers['x-peerscope-route']).toBe(ROUTE['x-peerscope-route']);
    expect(answer.headers['x-upstream-hop']).toBeUndefined();
    // The proxy's listener announces its own keep-alive; the upstream's is not relayed.
    expect(answer.headers['keep-alive']).not.toContain('timeout=99');

    expect(seen['x-client-hop']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['keep-alive']).toBeUndefined();
    expect(seen.accept).toBe('application/json');
    expect(seen['impersonate-user']).toBe('jane');
    expect(seen['x-kubernetes-peer-proxied']).toBe('true');
    expect(seen.authorization).toBe('Bearer core-token');
    // The response header is for the client only (spec P3).
    expect(seen['x-peerscope-route']).toBeUndefined();
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result).toMatchObject({ status: 200, headersSent: true, bytesOut: 20 });
    expect(result.error).toBeUndefined();
  });

  it("keeps the client's own Authorization instead of adding the server token", async () => {
    let seen: IncomingHttpHeaders = {};
    const { proxy } = await setUp(
      (req, res) => {
        seen = req.headers;
        res.end('ok');
      },
      { token: 'core-token' },
    );
    await send(`${proxy.url}/version`, { headers: { authorization: 'Bearer client-token' } });
    expect(seen.authorization).toBe('Bearer client-token');
  });

  it("a 401 to the core's own token asks its source for a fresh one (exec plugin, token file); a client's own 401 does not", async () => {
    const upstream = await startHttpsUpstream(tls, (req, res) => {
      res.statusCode = req.headers.authorization === 'Bearer fresh' ? 200 : 401;
      res.end();
    });
    let token = 'revoked';
    let refreshed = 0;
    const upstreams = new Upstreams([
      {
        name: 'a',
        url: upstream.url,
        ca: tls.ca.cert,
        bearerToken: () => token,
        onUnauthorized: () => {
          refreshed++;
          token = 'fresh';
        },
      },
    ]);
    const proxy = await startProxy(upstreams, 'a', { forward: { responseHeaders: ROUTE, errorResponseHeaders: UNAVAILABLE } });
    cleanups.push(
      () => upstream.close(),
      () => upstreams.destroy(),
      () => proxy.close(),
    );
    expect((await send(`${proxy.url}/api`, { headers: { authorization: 'Bearer clients-own' } })).status).toBe(401);
    expect(refreshed).toBe(0);
    expect((await send(`${proxy.url}/api`)).status).toBe(401);
    expect(refreshed).toBe(1);
    expect((await send(`${proxy.url}/api`)).status).toBe(200);
    expect(refreshed).toBe(1);
  });

  it('answers 503 with a PEERSCOPE_ERR_UPSTREAM_TLS cause naming the certificate problem when the CA is wrong', async () => {
    let reached = false;
    const { proxy } = await setUp(
      () => {
        reached = true;
      },
      { ca: tls.otherCa.cert },
    );
    const answer = await send(`${proxy.url}/api/v1/pods`);
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-peerscope-route']).toBe(UNAVAILABLE['x-peerscope-route']);
    const status = statusOf(answer.body);
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toMatch(
      /^Error while proxying request to destination apiserver: apiserver "a": TLS handshake failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
    );
    const result = (await proxy.nextResult()) as ForwardResult;
    expect(result.error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_TLS');
    expect(result).toMatchObject({ status: 503, headersSent: false });
    expect(reached).toBe(false);
  });

  it('refuses a certificate that does not name the server (servername checked, never skipped)', async () => {
    const { proxy } = await setUp((_req, res) => res.end('ok'), { servername: 'not-the-server.example' });
    const answer = await send(`${proxy.url}/version`);
    expect(answer.status).toBe(503);
    expect(statusOf(answer.body).message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(((await proxy.nextResult()) as ForwardResult).error?.code).toBe('PEERSCOPE_ERR_UPSTREAM_TLS');
  });
});
