// "Receive audit events…" end to end without Electron: the files the setup writes are what a real
// kube-apiserver's --audit-webhook-config-file needs, and a post made from one of them (its URL, its
// inline CA, its token) reaches the real receiver named as that server; a stranger's is refused.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, type networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuditWebhook, type AuditRecord, type AuditWebhook } from '../../proxy-core/hosts/index.js';
import { prepareWebhookSetup, reachableAddress, type WebhookSetup } from './audit-webhook-setup.js';

interface WebhookKubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data'?: string } }[];
  users: { name: string; user: { token: string } }[];
}

const event = {
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  requestURI: '/apis/certificates.k8s.io/v1/podcertificaterequests',
  verb: 'list',
  user: { username: 'token-admin', groups: ['system:masters'] },
  userAgent: 'cert-rotator/v0.3.1',
  objectRef: { resource: 'podcertificaterequests', apiGroup: 'certificates.k8s.io', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 404 },
  requestReceivedTimestamp: '2026-11-26T05:00:00.000000Z',
  stageTimestamp: '2026-11-26T05:00:00.001000Z',
};
const body = JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [event] });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('the desktop app’s audit webhook setup', () => {
  let folder: string;
  let setup: WebhookSetup;
  let webhook: AuditWebhook;
  const records: AuditRecord[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'webhook-setup-'));
    setup = await prepareWebhookSetup({
      host: '127.0.0.1',
      port: await freePort(),
      servers: [{ name: 'apiserver-a1b2', displayName: 'kube-old' }, { name: 'apiserver-c3d4' }],
      folder,
    });
    webhook = await startAuditWebhook({ ...setup.options, onRecord: (r) => records.push(r) });
  });
  afterAll(async () => {
    await webhook?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const kubeconfigOf = (server: string) =>
    parse(readFileSync(setup.kubeconfigs.find((k) => k.server === server)!.file, 'utf8')) as WebhookKubeconfig;

  async function post(kubeconfig: WebhookKubeconfig, token: string) {
    const cluster = kubeconfig.clusters[0]!.cluster;
    const ca = Buffer.from(cluster['certificate-authority-data'] ?? '', 'base64').toString();
    // TLS verified against the CA the kubeconfig carries, as kube-apiserver would.
    const agent = new Agent({ connect: { ca } });
    try {
      const res = await request(cluster.server, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        dispatcher: agent,
      });
      await res.body.text();
      return res.statusCode;
    } finally {
      await agent.close();
    }
  }

  it('writes a kubeconfig and a token per server (secret files 0600) and the generated CA', () => {
    expect(setup.written.map((f) => f.slice(folder.length + 1)).sort()).toEqual([
      'apiserver-c3d4-audit-webhook.kubeconfig',
      'apiserver-c3d4-audit-webhook.token',
      'audit-webhook-ca.crt',
      'kube-old-audit-webhook.kubeconfig',
      'kube-old-audit-webhook.token',
    ]);
    for (const f of setup.written.filter((f) => !f.endsWith('.crt'))) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    expect(setup.url).toBe(`https://127.0.0.1:${setup.options.port}/`);
  });

  it('a post made from a server’s kubeconfig reaches the receiver named as that server', async () => {
    const kubeconfig = kubeconfigOf('apiserver-a1b2');
    expect(await post(kubeconfig, kubeconfig.users[0]!.user.token)).toBe(200);
    expect(records.map((r) => [r.server, r.userAgent, r.code])).toEqual([['apiserver-a1b2', 'cert-rotator/v0.3.1', 404]]);
    // Each server has a token of its own.
    expect(kubeconfigOf('apiserver-c3d4').users[0]!.user.token).not.toBe(kubeconfig.users[0]!.user.token);
  });

  it('a stranger’s token is refused', async () => {
    expect(await post(kubeconfigOf('apiserver-a1b2'), 'not-a-token-of-any-server')).toBe(401);
    expect(records).toHaveLength(1);
  });

  it('listening on every interface, the servers are told an external address', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
      eth0: [{ address: '10.1.2.3', family: 'IPv4', internal: false }],
    } as unknown as ReturnType<typeof networkInterfaces>;
    expect(reachableAddress('0.0.0.0', interfaces)).toBe('10.1.2.3');
    expect(reachableAddress('127.0.0.1', interfaces)).toBe('127.0.0.1');
  });
});
