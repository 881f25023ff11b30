// Upstreams over real sockets: keep-alive reuse, mutual TLS, the TLS server name, and server-list
// changes that keep, replace or gracefully close pools.
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { issueServerCertificate } from '../tls/certs.js';
import { Upstreams } from './pool.js';
import { startHttpsUpstream, within, useUpstreamFixtures } from '../../test/upstream-fixtures.js';
import { request } from './undici.js';

const { tls, cleanups } = useUpstreamFixtures();

async function get(upstreams: Upstreams, name: string, path = '/version'): Promise<{ status: number; body: string }> {
  const upstream = upstreams.get(name);
  if (!upstream) throw new Error(`no upstream ${name}`);
  const res = await request(new URL(path, upstream.config.url), { dispatcher: upstream.pool });
  return { status: res.statusCode, body: await res.body.text() };
}

describe('Upstreams', () => {
  it('reuses keep-alive connections: 20 sequential requests open at most two', async () => {
    const server = await startHttpsUpstream(tls, (_req, res) => res.end('{"major":"1"}'));
    const upstreams = new Upstreams([{ name: 'a', url: server.url, ca: tls.ca.cert }]);
    cleanups.push(
      () => server.close(),
      () => upstreams.destroy(),
    );
    for (let i = 0; i < 20; i++) expect(await get(upstreams, 'a')).toEqual({ status: 200, body: '{"major":"1"}' });
    // A request dispatched in the tick its predecessor's body ends can find that connection still
    // busy, so undici may open a second one; never one per request.
    expect(upstreams.connectionsOpened('a')).toBeGreaterThanOrEqual(1);
    expect(upstreams.connectionsOpened('a')).toBeLessThanOrEqual(2);
    expect(upstreams.connectionsOpened('nobody')).toBe(0);
  });

  it('presents the client certificate to a server that requires one', async () => {
    let subject: PeerCertificate['subject'] | undefined;
    const server = await startHttpsUpstream(
      tls,
      (req, res) => {
        subject = (req.socket as TLSSocket).getPeerCertificate().subject;
        res.end('ok');
      },
      { requireClientCert: true },
    );
    const upstreams = new Upstreams([
      { name: 'with-cert', url: server.url, ca: tls.ca.cert, clientCert: tls.client },
      { name: 'without-cert', url: server.url, ca: tls.ca.cert },
    ]);
    cleanups.push(
      () => server.close(),
      () => upstreams.destroy(),
    );
    expect(await get(upstreams, 'with-cert')).toEqual({ status: 200, body: 'ok' });
    expect(subject?.CN).toBe('peerscope-proxy');
    // Node's server rejects the handshake without a certificate; the request fails, never succeeds.
    await expect(get(upstreams, 'without-cert')).rejects.toThrow();
  });

  it('verifies the certificate against servername when the URL is an address', async () => {
    const onlyServiceName = await issueServerCertificate(tls.ca, { hosts: ['kubernetes.default.svc'] });
    const server = await startHttpsUpstream(tls, (_req, res) => res.end('ok'), { cert: onlyServiceName });
    const upstreams = new Upstreams([
      { name: 'named', url: server.url, ca: tls.ca.cert, servername: 'kubernetes.default.svc' },
      { name: 'by-address', url: server.url, ca: tls.ca.cert },
    ]);
    cleanups.push(
      () => server.close(),
      () => upstreams.destroy(),
    );
    expect(await get(upstreams, 'named')).toEqual({ status: 200, body: 'ok' });
    await expect(get(upstreams, 'by-address')).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('setServers keeps a pool whose transport is unchanged, replaces a changed one, closes a removed one', async () => {
    const server = await startHttpsUpstream(tls, (req, res) => res.end(req.url));
    const other = await startHttpsUpstream(tls, (_req, res) => res.end('other'));
    cleanups.push(
      () => server.close(),
      () => other.close(),
    );
    const upstreams = new Upstreams([
      { name: 'a', url: server.url, ca: tls.ca.cert, bearerToken: () => 'one' },
      { name: 'b', url: server.url, ca: tls.ca.cert },
      { name: 'c', url: server.url, ca: tls.ca.cert },
    ]);
    cleanups.push(() => upstreams.destroy());
    const poolA = upstreams.get('a')?.pool;
    const poolB = upstreams.get('b')?.pool;
    const poolC = upstreams.get('c')?.pool;

    upstreams.setServers([
      { name: 'a', url: server.url, ca: tls.ca.cert, bearerToken: () => 'two' },
      { name: 'b', url: other.url, ca: tls.ca.cert },
    ]);
    expect(upstreams.get('a')?.pool).toBe(poolA);
    expect(upstreams.get('a')?.config.bearerToken?.()).toBe('two');
    expect(upstreams.get('b')?.pool).not.toBe(poolB);
    expect(await get(upstreams, 'b')).toEqual({ status: 200, body: 'other' });
    expect(upstreams.get('c')).toBeUndefined();
    expect(upstreams.names().sort()).toEqual(['a', 'b']);
    expect(poolB?.closed).toBe(true);
    expect(poolC?.closed).toBe(true);
  });

  it('a removed server finishes the request it is serving before its pool closes', async () => {
    let answer: (() => void) | undefined;
    const server = await startHttpsUpstream(tls, (_req, res) => {
      answer = () => res.end('late but whole');
    });
    cleanups.push(() => server.close());
    const upstreams = new Upstreams([{ name: 'a', url: server.url, ca: tls.ca.cert }]);
    cleanups.push(() => upstreams.destroy());
    const inFlight = get(upstreams, 'a');
    await within(
      new Promise<void>((resolve) => {
        // Wait for the server's handler itself, not only the pool's bookkeeping: on a loaded machine the
        // pool counts the request as running well before the server has read it.
        const poll = () => (answer ? resolve() : setTimeout(poll, 10));
        poll();
      }),
      10_000,
      'the request never reached the server',
    );
    const pool = upstreams.get('a')?.pool;
    upstreams.setServers([]);
    answer?.();
    expect(await inFlight).toEqual({ status: 200, body: 'late but whole' });
    expect(pool?.closed).toBe(true);
  });

  it('close() waits for requests in flight; destroy() fails them', async () => {
    const pending: Array<() => void> = [];
    const server = await startHttpsUpstream(tls, (_req, res) => pending.push(() => res.end('done')));
    cleanups.push(() => server.close());
    const graceful = new Upstreams([{ name: 'a', url: server.url, ca: tls.ca.cert }]);
    const abrupt = new Upstreams([{ name: 'a', url: server.url, ca: tls.ca.cert }]);
    const first = get(graceful, 'a');
    const second = get(abrupt, 'a');
    await within(
      new Promise<void>((resolve) => {
        const poll = () => (pending.length === 2 ? resolve() : setTimeout(poll, 10));
        poll();
      }),
      10_000,
      'the requests never reached the server',
    );
    const closing = graceful.close();
    await abrupt.destroy();
    await expect(second).rejects.toMatchObject({ code: 'UND_ERR_DESTROYED' });
    for (const finish of pending) finish();
    expect(await first).toEqual({ status: 200, body: 'done' });
    await closing;
    expect(graceful.get('a')).toBeUndefined();
  });

  it('refuses a URL that is not http or https', () => {
    expect(() => new Upstreams([{ name: 'a', url: 'ftp://127.0.0.1:21' }])).toThrow(/unsupported URL scheme ftp:/);
  });
});
