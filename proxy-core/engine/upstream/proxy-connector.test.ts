// Upstream pools through an HTTP CONNECT proxy on loopback (real sockets): the TLS handshake inside
// the tunnel still verifies the server against the configured CA and presents the client
// certificate; proxy credentials become Proxy-Authorization only; every failure has a clear cause.
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { startConnectProxy } from '../../test/connect-proxy.js';
import { classifyUpstreamError, isConnectFailure } from './errors.js';
import { Upstreams } from './pool.js';
import { startHttpsUpstream, useUpstreamFixtures } from '../../test/upstream-fixtures.js';
import { request } from './undici.js';

const { tls, cleanups } = useUpstreamFixtures();

async function get(upstreams: Upstreams, name: string): Promise<{ status: number; body: string }> {
  const upstream = upstreams.get(name)!;
  const res = await request(new URL('/version', upstream.config.url), { dispatcher: upstream.pool });
  return { status: res.statusCode, body: await res.body.text() };
}

describe('upstream connections through a CONNECT proxy', () => {
  it('tunnels to the server; TLS inside is verified with the CA and server name, the client certificate presented', async () => {
    let cn: string | undefined;
    const server = await startHttpsUpstream(
      tls,
      (req, res) => {
        cn = [(req.socket as TLSSocket).getPeerCertificate().subject?.CN].flat()[0];
        res.end('ok');
      },
      { requireClientCert: true },
    );
    // The proxy maps a name the test machine cannot resolve to the server.
    const proxy = await startConnectProxy({ map: { 'apiserver.internal': '127.0.0.1' } });
    const upstreams = new Upstreams([
      {
        name: 'a',
        url: `https://apiserver.internal:${server.port}`,
        ca: tls.ca.cert,
        servername: 'kubernetes.default.svc',
        clientCert: tls.client,
        proxy: proxy.url,
      },
    ]);
    cleanups.push(
      () => server.close(),
      () => proxy.close(),
      () => upstreams.destroy(),
    );
    expect(await get(upstreams, 'a')).toEqual({ status: 200, body: 'ok' });
    expect(await get(upstreams, 'a')).toEqual({ status: 200, body: 'ok' });
    // Keep-alive: a tunnel is a connection (a second may open in the tick the first body ends).
    expect(new Set(proxy.targets)).toEqual(new Set([`apiserver.internal:${server.port}`]));
    expect(proxy.targets.length).toBeLessThanOrEqual(2);
    expect(cn).toBe('peerscope-proxy');
  });

  it('a CA that does not verify the server fails the handshake inside the tunnel', async () => {
    const server = await startHttpsUpstream(tls, (_req, res) => res.end('ok'));
    const proxy = await startConnectProxy();
    const upstreams = new Upstreams([{ name: 'a', url: server.url, ca: tls.otherCa.cert, proxy: proxy.url }]);
    cleanups.push(
      () => server.close(),
      () => proxy.close(),
      () => upstreams.destroy(),
    );
    const err = await get(upstreams, 'a').catch((e: unknown) => e);
    const classified = classifyUpstreamError(err);
    expect(classified.code).toBe('PEERSCOPE_ERR_UPSTREAM_TLS');
    expect(proxy.targets).toEqual([`127.0.0.1:${server.port}`]);
  });

  it('proxy credentials go in Proxy-Authorization; a refused CONNECT names the proxy without them', async () => {
    const server = await startHttpsUpstream(tls, (_req, res) => res.end('ok'));
    const expected = `Basic ${Buffer.from('ops:pa ss').toString('base64')}`;
    const proxy = await startConnectProxy({ requireAuthorization: expected });
    const good = `http://ops:pa%20ss@127.0.0.1:${proxy.port}`;
    const bad = `http://ops:wrong-secret@127.0.0.1:${proxy.port}`;
    const upstreams = new Upstreams([
      { name: 'good', url: server.url, ca: tls.ca.cert, proxy: good },
      { name: 'bad', url: server.url, ca: tls.ca.cert, proxy: bad },
    ]);
    cleanups.push(
      () => server.close(),
      () => proxy.close(),
      () => upstreams.destroy(),
    );
    expect(await get(upstreams, 'good')).toEqual({ status: 200, body: 'ok' });
    const err = classifyUpstreamError(await get(upstreams, 'bad').catch((e: unknown) => e));
    expect(err.message).toBe(
      `proxy http://***@127.0.0.1:${proxy.port} answered CONNECT 127.0.0.1:${server.port} with 407 Proxy Authentication Required`,
    );
    expect(err.message).not.toContain('wrong-secret');
    expect(isConnectFailure(err)).toBe(true);
  });

  it('a proxy that cannot reach the server, and a proxy that is not there, are connect failures', async () => {
    const proxy = await startConnectProxy();
    const gone = await startHttpsUpstream(tls, (_req, res) => res.end('ok'));
    const port = gone.port;
    await gone.close();
    const upstreams = new Upstreams([
      { name: 'unreachable', url: `https://127.0.0.1:${port}`, ca: tls.ca.cert, proxy: proxy.url },
      { name: 'no-proxy', url: `https://127.0.0.1:${port}`, ca: tls.ca.cert, proxy: 'http://127.0.0.1:1' },
    ]);
    cleanups.push(
      () => proxy.close(),
      () => upstreams.destroy(),
    );
    const viaProxy = classifyUpstreamError(await get(upstreams, 'unreachable').catch((e: unknown) => e));
    expect(viaProxy).toEqual({
      code: 'PEERSCOPE_ERR_UPSTREAM_UNREACHABLE',
      message: `proxy ${proxy.url} answered CONNECT 127.0.0.1:${port} with 502 Bad Gateway`,
    });
    const noProxy = classifyUpstreamError(await get(upstreams, 'no-proxy').catch((e: unknown) => e));
    expect(noProxy.code).toBe('PEERSCOPE_ERR_UPSTREAM_CONNECT_REFUSED');
    expect(noProxy.message).toContain('proxy http://127.0.0.1:1: connect ECONNREFUSED');
  });
});
