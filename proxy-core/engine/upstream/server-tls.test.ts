// serverTls over real TLS sockets: one secure context serves every connect to a server (the CA and
// client certificate are not parsed again per connect), the client certificate still authenticates
// and the server is still verified, and material that does not parse fails each connect, not the port.
import tls, { type TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { startHttpsUpstream, useUpstreamFixtures, type TestServer } from '../../test/upstream-fixtures.js';
import { serverTls, type UpstreamTls } from './server-tls.js';
import { buildConnector } from './undici.js';

const { tls: material, cleanups } = useUpstreamFixtures();

/** A TLS connect as the pools and probes make it (undici's connector). */
function connect(options: UpstreamTls, server: TestServer): Promise<TLSSocket> {
  const connector = buildConnector({ ...options, timeout: 5_000 });
  return new Promise((resolve, reject) => {
    connector({ hostname: '127.0.0.1', host: '127.0.0.1', protocol: 'https:', port: String(server.port), servername: '' }, (err, socket) =>
      err ? reject(err) : resolve(socket as TLSSocket),
    );
  });
}

/** Counts the secure contexts tls.connect builds (it calls the module's own createSecureContext). */
function countContexts(): { readonly count: () => number } {
  const original = tls.createSecureContext;
  let count = 0;
  tls.createSecureContext = (options) => {
    count++;
    return original(options);
  };
  cleanups.push(async () => {
    tls.createSecureContext = original;
  });
  return { count: () => count };
}

describe('serverTls', () => {
  it('builds one secure context for every connect, which verifies the server and presents the client certificate', async () => {
    const seen: string[] = [];
    const server = await startHttpsUpstream(
      material,
      (req, res) => {
        seen.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
        res.end('ok');
      },
      { requireClientCert: true },
    );
    cleanups.push(() => server.close());
    const options = serverTls({ ca: material.ca.cert, clientCert: material.client });
    expect('secureContext' in options).toBe(true);

    const contexts = countContexts();
    for (let i = 0; i < 5; i++) {
      const socket = await connect(options, server);
      expect(socket.authorized).toBe(true);
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      for await (const _ of socket);
    }
    expect(contexts.count()).toBe(0);
    expect(seen).toEqual(Array(5).fill('peerscope-proxy'));

    // The same material given as strings is parsed into a context on every connect.
    const raw = { ca: material.ca.cert, cert: material.client.cert, key: material.client.key };
    for (let i = 0; i < 3; i++) (await connect(raw, server)).destroy();
    expect(contexts.count()).toBe(3);
  });

  it('still refuses a server its CA did not sign', async () => {
    const server = await startHttpsUpstream(material, (_req, res) => res.end('ok'));
    cleanups.push(() => server.close());
    await expect(connect(serverTls({ ca: material.otherCa.cert }), server)).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('leaves a key that does not parse to each connect, which fails with OpenSSL’s reason', async () => {
    const server = await startHttpsUpstream(material, (_req, res) => res.end('ok'));
    cleanups.push(() => server.close());
    const options = serverTls({ ca: material.ca.cert, clientCert: { cert: material.client.cert, key: 'not a key' } });
    expect('secureContext' in options).toBe(false);
    await expect(connect(options, server)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_OSSL_/) });
  });
});
