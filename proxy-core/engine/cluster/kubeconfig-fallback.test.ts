// Servers out of reach by design, on stand-ins: an HTTPS apiserver (the kubeconfig's server, as a
// load balancer would be) whose identity leases and default/kubernetes endpoints advertise addresses
// that nothing answers — a port nothing listens on, and a listener that never completes a TLS
// handshake. The kubeconfig's server must join the servers while none of them answers, each of them
// stays listed with its cause, and it leaves once one of them answers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTlsMaterial, freePort, startHttpsUpstream, startTcpUpstream, type TestServer } from '../../test/upstream-fixtures.js';
import { serversFromKubeconfig, type ClusterServers } from './from-kubeconfig.js';
import { ServerSet } from './server-set.js';
import { reachabilityLines } from './reachability.js';
import type { KnownServer } from './server-config.js';

function lease(name: string, hostname: string, address: string) {
  return {
    metadata: {
      name,
      labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname },
      annotations: { 'kubernetes.io/peer-advertise-address': address },
    },
    spec: { holderIdentity: `${name}_1`, renewTime: new Date().toISOString(), leaseDurationSeconds: 3600 },
  };
}

describe('the kubeconfig server stands in while no advertised address answers', () => {
  const servers: TestServer[] = [];
  let kubeconfig: string;
  let lbUrl: string;
  let refused: string;
  let silent: string;

  beforeAll(async () => {
    const tls = await createTlsMaterial();
    refused = `127.0.0.1:${await freePort()}`;
    const silentServer = await startTcpUpstream(() => undefined);
    servers.push(silentServer);
    silent = `127.0.0.1:${silentServer.port}`;
    const answer = (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0];
      const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path === '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')
        return json({ items: [lease('apiserver-aaa', 'cp-1', refused), lease('apiserver-bbb', 'cp-2', silent)] });
      if (path === '/api/v1/namespaces/default/endpoints/kubernetes')
        return json({
          subsets: [
            { addresses: [refused, silent].map((a) => ({ ip: a.split(':')[0] })), ports: [{ port: Number(refused.split(':')[1]) }] },
          ],
        });
      if (path === '/readyz') return res.writeHead(200).end('ok');
      if (path === '/version') return json({ gitVersion: 'v1.37.0' });
      res.writeHead(404).end();
    };
    const lb = await startHttpsUpstream(tls, answer);
    servers.push(lb);
    lbUrl = lb.url.replace(/^http:/, 'https:');
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'kc-fallback-')), 'config');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${lbUrl}
    certificate-authority-data: ${Buffer.from(tls.ca.cert).toString('base64')}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`,
    );
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  let found: ClusterServers;
  it('finds the advertised servers, none answers: the kubeconfig server joins them, and a warning says why', async () => {
    found = await serversFromKubeconfig({ kubeconfig, env: {} });
    expect(found.servers.map((s) => [s.name, s.source])).toEqual([
      ['apiserver-aaa', 'lease'],
      ['apiserver-bbb', 'lease'],
      [new URL(lbUrl).host, 'kubeconfig'],
    ]);
    const warning = found.warnings.find((w) => w.startsWith('none of the 2 apiserver address(es)'));
    expect(warning).toContain('connection refused');
    expect(warning).toContain('timeout');
    expect(warning).toContain(`the port routes through the kubeconfig's server ${lbUrl}`);
  });

  it('each advertised server is unreachable with its cause; the summary is one line per cause', async () => {
    const servers = new ServerSet(found.servers, { timeoutMs: 3_000 });
    try {
      await Promise.all(found.servers.map((s) => servers.probe(s.name)));
      const statuses = servers.statuses();
      expect(statuses.map((s) => [s.displayName, s.health, s.unreachable?.cause])).toEqual([
        ['cp-1', 'unreachable', 'refused'],
        ['cp-2', 'unreachable', 'timeout'],
        [new URL(lbUrl).host, 'ready', undefined],
      ]);
      const lines = reachabilityLines(statuses);
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`1 apiserver out of reach, connection refused (nothing listens there): ${refused} (cp-1)`);
      expect(lines[1]).toMatch(new RegExp(`^1 apiserver out of reach, timeout .*: ${silent} \\(cp-2\\)$`));
      expect(lines[2]).toBe(`the port routes through ${new URL(lbUrl).host} (${lbUrl})`);
    } finally {
      await servers.close();
    }
  });

  it('a refresh keeps it while no advertised server is ready, and calls it gone once one is', async () => {
    const known = (readyName?: string): KnownServer[] => found.servers.map((config) => ({ config, ready: config.name === readyName }));
    const still = await found.source.refresh(known());
    expect(still.servers.map((s) => s.name)).toContain(new URL(lbUrl).host);
    expect(still.gone.size).toBe(0);
    const answered = await found.source.refresh(known('apiserver-aaa'));
    expect(answered.servers.map((s) => s.name)).not.toContain(new URL(lbUrl).host);
    expect(answered.gone.get(new URL(lbUrl).host)).toBe('an apiserver address the cluster advertises answers from here now');
  });
});
