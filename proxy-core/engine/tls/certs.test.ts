import { once } from 'node:events';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from './certs.js';

describe('generated certificates', () => {
  it('a serving certificate verifies against its CA on a real TLS socket, with a client certificate', async () => {
    const ca = await createCertificateAuthority();
    const serving = await issueServerCertificate(ca);
    const client = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['devs'] });
    const server = createServer({ ...serving, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.end(`${peer.subject.CN}/${peer.subject.O}`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, ca: ca.cert, cert: client.cert, key: client.key }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    server.close();
    expect(body).toBe('alice/devs');
  });

  it('another CA does not verify it', async () => {
    const [ca, other] = await Promise.all([createCertificateAuthority(), createCertificateAuthority('other')]);
    const serving = await issueServerCertificate(ca);
    const server = createServer(serving, (_req, res) => res.end('no'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      request({ host: '127.0.0.1', port, ca: other.cert }, () => resolve(new Error('connected')))
        .on('error', resolve)
        .end();
    });
    server.close();
    expect(error.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});
