// Authentication of the simulated HTTPS apiservers, on real sockets: a client certificate signed by
// the cluster CA (user = CN, groups = O), or the token; without either a 401 Status.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate, type PemPair } from '../../engine/tls/certs.js';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import type { SimRequestRecord } from './server.js';

function get(
  url: string,
  path: string,
  ca: string,
  opts: { cert?: PemPair; token?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, url),
      {
        ca,
        agent: false,
        ...(opts.cert ? { cert: opts.cert.cert, key: opts.cert.key } : {}),
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('simulated apiserver authentication', () => {
  let sim: SimCluster;
  let certOnly: SimCluster;
  const seen: SimRequestRecord[] = [];
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.37-dev')] });
    sim.onRequest((_s, r) => seen.push(r));
    certOnly = await startSimCluster({ releases: [loadRelease('v1.37-dev')], auth: { token: false, clientCerts: true } });
  });
  afterAll(async () => {
    await sim?.close();
    await certOnly?.close();
  });

  const url = () => sim.servers[0]!.info().url;
  const PATH = '/api/v1/namespaces/default/configmaps';

  it('a client certificate of the cluster CA authenticates as its CN with its O values as groups', async () => {
    const cert = await sim.issueClientCertificate('alice', ['dev', 'ops']);
    seen.length = 0;
    const r = await get(url(), PATH, sim.ca!, { cert });
    expect(r.status, r.body).toBe(200);
    expect(seen.at(-1)?.user).toEqual({ name: 'alice', groups: ['dev', 'ops', 'system:authenticated'], via: 'client-certificate' });
  });

  it('the token authenticates too; neither gives a 401 Status, while /version stays open', async () => {
    expect((await get(url(), PATH, sim.ca!, { token: sim.token! })).status).toBe(200);
    expect(seen.at(-1)?.user?.via).toBe('token');
    const none = await get(url(), PATH, sim.ca!);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    expect((await get(url(), '/version', sim.ca!)).status).toBe(200);
  });

  it('a certificate of another CA is not a credential', async () => {
    const stranger = await issueClientCertificate(await createCertificateAuthority('elsewhere'), {
      commonName: 'mallory',
      organizations: ['system:masters'],
    });
    const r = await get(url(), PATH, sim.ca!, { cert: stranger });
    expect(r.status).toBe(401);
  });

  it('a cluster that accepts certificates only refuses the token', async () => {
    const u = certOnly.servers[0]!.info().url;
    expect((await get(u, PATH, certOnly.ca!, { token: certOnly.token! })).status).toBe(401);
    expect((await get(u, PATH, certOnly.ca!, { cert: await certOnly.issueClientCertificate('bob') })).status).toBe(200);
  });
});
