// A kubeconfig's client certificate and proxy, end to end through the local port (issue 5):
// - simulated HTTPS servers that accept only client certificates of the cluster CA: a kubeconfig with
//   client-certificate/-key (data, and files next to it) finds every server and its requests reach
//   them as the certificate's user; one without a credential is refused with a named error;
// - proxy-url in the kubeconfig, and HTTPS_PROXY / NO_PROXY in the environment, through a CONNECT
//   proxy on loopback that records every CONNECT: the servers advertise an address only the proxy
//   reaches, so every answer proves the tunnel; the kubeconfig's CA still verifies them inside it.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../../test/fixtures.js';
import { serversFromKubeconfig } from '../engine/cluster/from-kubeconfig.js';
import { createCore, type Core } from '../engine/core.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster, type SimCluster, type SimRequestRecord } from '../sim/index.js';
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js';

const NEW_ONLY = '/apis/storagemigration.k8s.io/v1/storageversionmigrations';
const COMMON = '/api/v1/namespaces/default/configmaps';
// TEST-NET-1 (RFC 5737): never routed, so only the test proxy (which maps it to 127.0.0.1) reaches it.
const HIDDEN = '192.0.2.10';

const b64 = (s: string) => Buffer.from(s).toString('base64');

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
}

function writeConfig(yamlText: string, mutate: (doc: KubeconfigDoc) => void = () => undefined, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'kc-transport-'));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  const doc = parse(yamlText) as KubeconfigDoc;
  mutate(doc);
  const file = join(dir, 'config');
  writeFileSync(file, stringify(doc));
  return file;
}

async function through(core: Core, path: string): Promise<{ status: number; route: string }> {
  const res = await fetch(`${core.address()!.url}${path}`);
  await res.arrayBuffer();
  return { status: res.status, route: res.headers.get('x-peerscope-route') ?? '' };
}

describe('client certificates from the kubeconfig', () => {
  let sim: SimCluster;
  const seen: { server: string; req: SimRequestRecord }[] = [];
  beforeAll(async () => {
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      auth: { token: false, clientCerts: true },
    });
    sim.onRequest((server, req) => seen.push({ server, req }));
  });
  afterAll(() => sim?.close());

  for (const form of ['data', 'files'] as const) {
    it(`client-certificate${form === 'data' ? '-data / client-key-data' : ' / client-key files'} authenticate every read and every request through Peerscope`, async () => {
      const cert = await sim.issueClientCertificate(`operator-${form}`, ['system:masters']);
      const user =
        form === 'data'
          ? { 'client-certificate-data': b64(cert.cert), 'client-key-data': b64(cert.key) }
          : { 'client-certificate': 'operator.crt', 'client-key': 'operator.key' }; // relative to the kubeconfig
      const file = writeConfig(sim.kubeconfig({ user }), () => undefined, { 'operator.crt': cert.cert, 'operator.key': cert.key });
      const found = await serversFromKubeconfig({ kubeconfig: file, env: {} });
      expect(found.warnings).toEqual([]);
      expect(found.servers.map((s) => [s.name, s.source])).toEqual([
        ['apiserver-new', 'lease'],
        ['apiserver-old', 'lease'],
      ]);
      const core = createCore({ servers: found.servers, listen: { port: 0 }, policy: { kind: 'pin', server: 'apiserver-old' } });
      try {
        await core.start();
        expect(core.serverStatuses().map((s) => s.health)).toEqual(['ready', 'ready']);
        seen.length = 0;
        expect(await through(core, COMMON)).toEqual({
          status: 200,
          route: 'handling=old; answering=old; outcome=local; handling-id=apiserver-old; answering-id=apiserver-old',
        });
        expect(await through(core, NEW_ONLY)).toEqual({
          status: 200,
          route: 'handling=old; answering=new; outcome=rerouted; handling-id=apiserver-old; answering-id=apiserver-new',
        });
        const users = seen
          .filter((s) => s.req.url === COMMON || s.req.url === NEW_ONLY)
          .map((s) => [s.server, s.req.user?.name, s.req.user?.via]);
        expect(users).toEqual([
          ['old', `operator-${form}`, 'client-certificate'],
          ['new', `operator-${form}`, 'client-certificate'],
        ]);
      } finally {
        await core.close(0);
      }
    });
  }

  it('an exec plugin that returns a client certificate and key authenticates like a kubeconfig certificate', async () => {
    const cert = await sim.issueClientCertificate('exec-operator');
    const dir = mkdtempSync(join(tmpdir(), 'kc-exec-cert-'));
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { clientCertificateData: cert.cert, clientKeyData: cert.key },
    });
    writeFileSync(join(dir, 'credential.json'), credential);
    const file = writeConfig(
      sim.kubeconfig({
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: '/bin/cat',
            args: [join(dir, 'credential.json')],
            interactiveMode: 'Never',
          },
        },
      }),
    );
    const found = await serversFromKubeconfig({ kubeconfig: file, env: { PATH: '/usr/bin:/bin' } });
    expect(found.servers.map((s) => s.source)).toEqual(['lease', 'lease']);
    seen.length = 0;
    const core = createCore({ servers: found.servers, listen: { port: 0 } });
    try {
      await core.start();
      expect((await through(core, COMMON)).status).toBe(200);
      expect(seen.find((s) => s.req.url === COMMON)?.req.user?.name).toBe('exec-operator');
    } finally {
      await core.close(0);
    }
  });

  it('a kubeconfig without a credential is refused with an error naming the server, the user and what was missing', async () => {
    const file = writeConfig(sim.kubeconfig({ user: {} }));
    const url = sim.server('old').info().url;
    await expect(serversFromKubeconfig({ kubeconfig: file, env: {} })).rejects.toThrow(
      `${url} answered 401 Unauthorized to a read of the apiserver identity leases: the cluster refused the credentials of user "old" of context "old" (the kubeconfig gives this user no token, client certificate or exec plugin)`,
    );
    // The same through the CLI: one line, exit 2, no stack trace. (Not spawnSync: the simulated servers
    // answer from this process.)
    const run = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['bin/peerscope', 'serve', '--kubeconfig', file, '--listen', '127.0.0.1:0'],
        { cwd: repoRoot, encoding: 'utf8', timeout: 20_000, env: { ...process.env, HTTPS_PROXY: '' } },
        (_err, _stdout, stderr) => {
          resolve({ status: child.exitCode, stderr });
        },
      );
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `peerscope: ${url} answered 401 Unauthorized to a read of the apiserver identity leases: the cluster refused the credentials of user "old" of context "old" (the kubeconfig gives this user no token, client certificate or exec plugin); see 'peerscope serve --help'`,
    ]);
    console.log(run.stderr.trim());
  });

  it('a certificate the cluster does not trust is refused, naming the certificate (never its key)', async () => {
    const { createCertificateAuthority, issueClientCertificate } = await import('../engine/tls/certs.js');
    const stranger = await issueClientCertificate(await createCertificateAuthority('elsewhere'), { commonName: 'mallory' });
    const file = writeConfig(
      sim.kubeconfig({ user: { 'client-certificate-data': b64(stranger.cert), 'client-key-data': b64(stranger.key) } }),
    );
    const err = await serversFromKubeconfig({ kubeconfig: file, env: {} }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(
      /refused the credentials of user "old" of context "old" \(it offered a client certificate CN=mallory\)$/,
    );
    expect((err as Error).message).not.toContain('PRIVATE KEY');
  });
});

describe('proxies: proxy-url, HTTPS_PROXY and NO_PROXY', () => {
  let sim: SimCluster;
  let proxy: ConnectProxy;
  const auth = `Basic ${b64('ops:s3cret pass')}`;
  beforeAll(async () => {
    sim = await startSimCluster({
      releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')],
      names: ['old', 'new'],
      advertiseHost: HIDDEN,
    });
    proxy = await startConnectProxy({ map: { [HIDDEN]: '127.0.0.1' }, requireAuthorization: auth });
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
  });

  it('proxy-url carries every connection — the finding, the probes, discovery and the data path — with the CA verifying inside', async () => {
    expect(sim.server('old').info().url).toMatch(new RegExp(`^https://${HIDDEN.replace(/\./g, '\\.')}:\\d+$`));
    const proxyUrl = `http://ops:s3cret%20pass@127.0.0.1:${proxy.port}`;
    const file = writeConfig(sim.kubeconfig(), (doc) => {
      for (const c of doc.clusters) c.cluster['proxy-url'] = proxyUrl;
    });
    proxy.targets.length = 0;
    // Even with NO_PROXY=* the kubeconfig's proxy-url is used (client-go: proxy-url wins).
    const found = await serversFromKubeconfig({ kubeconfig: file, env: { NO_PROXY: '*' } });
    expect(found.servers.map((s) => s.url)).toEqual([sim.server('new').info().url, sim.server('old').info().url]);
    expect(found.notes).toEqual([`connecting through the proxy http://***@127.0.0.1:${proxy.port} (the kubeconfig's proxy-url)`]);
    const core = createCore({ servers: found.servers, listen: { port: 0 }, policy: { kind: 'pin', server: 'apiserver-old' } });
    try {
      await core.start();
      expect(core.serverStatuses().map((s) => [s.name, s.health, s.proxy])).toEqual([
        ['apiserver-new', 'ready', `http://***@127.0.0.1:${proxy.port}`],
        ['apiserver-old', 'ready', `http://***@127.0.0.1:${proxy.port}`],
      ]);
      expect(await through(core, COMMON)).toEqual({
        status: 200,
        route: 'handling=old; answering=old; outcome=local; handling-id=apiserver-old; answering-id=apiserver-old',
      });
      expect(await through(core, NEW_ONLY)).toEqual({
        status: 200,
        route: 'handling=old; answering=new; outcome=rerouted; handling-id=apiserver-old; answering-id=apiserver-new',
      });
    } finally {
      await core.close(0);
    }
    const ports = sim.servers.map((s) => new URL(s.info().url).port);
    expect(new Set(proxy.targets)).toEqual(new Set(ports.map((p) => `${HIDDEN}:${p}`)));
    expect(new Set(proxy.authorizations)).toEqual(new Set([auth]));
    console.log(`CONNECT targets through proxy-url: ${proxy.targets.length} tunnels to ${[...new Set(proxy.targets)].join(', ')}`);
  });

  it('HTTPS_PROXY carries the connections to the servers found; the loopback kubeconfig server is reached directly, as Go does', async () => {
    const p = `http://ops:s3cret%20pass@127.0.0.1:${proxy.port}`;
    const oldPort = new URL(sim.server('old').info().url).port;
    const file = writeConfig(sim.kubeconfig(), (doc) => {
      for (const c of doc.clusters) c.cluster.server = `https://127.0.0.1:${oldPort}`;
    });
    proxy.targets.length = 0;
    const found = await serversFromKubeconfig({ kubeconfig: file, env: { HTTPS_PROXY: p } });
    const core = createCore({ servers: found.servers, listen: { port: 0 }, policy: { kind: 'pin', server: 'apiserver-old' } });
    try {
      await core.start();
      expect(await through(core, NEW_ONLY)).toEqual({
        status: 200,
        route: 'handling=old; answering=new; outcome=rerouted; handling-id=apiserver-old; answering-id=apiserver-new',
      });
    } finally {
      await core.close(0);
    }
    expect(proxy.targets.length).toBeGreaterThan(0);
    expect(
      proxy.targets.every((t) => t.startsWith(`${HIDDEN}:`)),
      proxy.targets.join(', '),
    ).toBe(true);
  });

  it('NO_PROXY exempts matching servers: no CONNECT, a direct connection (which cannot reach the hidden address)', async () => {
    const oldPort = new URL(sim.server('old').info().url).port;
    const file = writeConfig(sim.kubeconfig(), (doc) => {
      for (const c of doc.clusters) c.cluster.server = `https://127.0.0.1:${oldPort}`;
    });
    proxy.targets.length = 0;
    const found = await serversFromKubeconfig({
      kubeconfig: file,
      env: { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: 'example.com,192.0.2.0/24' },
    });
    expect(found.servers.every((s) => s.proxy === undefined)).toBe(true);
    const core = createCore({ servers: found.servers, listen: { port: 0 } });
    try {
      await core.start();
      const statuses = core.serverStatuses();
      expect(statuses.filter((s) => s.source === 'lease').map((s) => s.health)).toEqual(['unreachable', 'unreachable']);
      // No advertised address answers: the kubeconfig's own server stands in (kubeconfig-fallback.ts).
      expect(statuses.filter((s) => s.source === 'kubeconfig').map((s) => s.health)).toEqual(['ready']);
      console.log(`NO_PROXY bypass: ${statuses[0]?.lastError}`);
      expect(statuses[0]?.lastError).toContain(HIDDEN);
    } finally {
      await core.close(0);
    }
    expect(proxy.targets).toEqual([]);
  });
});
