// Life cycle of simulated apiservers on real sockets: health and version, identity leases and the
// kubernetes endpoints, watch in both forms, drain and restart, pod logs and the upgrade echo.
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import type { SimEvent } from '../types.js';
import { callServer, openStream } from '../../test/sim-client.js';

describe('simulated apiserver life cycle', () => {
  let cluster: SimCluster;
  const events: SimEvent[] = [];
  const url = (i: number) => cluster.servers[i]?.info().url as string;
  const call = (i: number, path: string, opts: Parameters<typeof callServer>[3] = {}) => callServer(cluster, url(i), path, opts);

  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev'), loadRelease('v1.37-dev')] });
    cluster.onEvent((e) => events.push(e));
  });
  afterAll(() => cluster?.close());

  it('answers /version and health without a token, like kube-apiserver', async () => {
    const version = await call(1, '/version', { auth: false });
    expect(version.json()).toMatchObject({ gitVersion: 'v1.37.0-dev', major: '1', minor: '37+', platform: 'linux/amd64' });
    expect(version.json().goVersion).toMatch(/^go1\./);
    for (const p of ['/livez', '/readyz', '/healthz']) {
      const r = await call(0, p, { auth: false });
      expect([r.status, r.body]).toEqual([200, 'ok']);
    }
    const verbose = await call(0, '/readyz?verbose', { auth: false });
    expect(verbose.body).toContain('[+]ping ok\n');
    expect(verbose.body).toMatch(/\[\+\]shutdown ok\nreadyz check passed\n$/);
    expect((await call(0, '/livez?verbose', { auth: false })).body).toMatch(/livez check passed\n$/);
  });

  it('publishes identity leases and the default/kubernetes Endpoints and EndpointSlice', async () => {
    const lease = (await call(0, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-sim-2')).json<{
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
    }>();
    expect(lease.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'sim-2' });
    expect(lease.metadata.annotations['kubernetes.io/peer-advertise-address']).toBe(url(1).replace('https://', ''));
    expect(lease.spec.holderIdentity).toMatch(/^apiserver-sim-2_[0-9a-f-]{36}$/);
    expect(lease.spec.leaseDurationSeconds).toBe(3600);
    const leases = (
      await call(
        0,
        '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver',
      )
    ).json<{ items: unknown[] }>();
    expect(leases.items).toHaveLength(3);
    const ports = cluster.servers.map((s) => Number(new URL(s.info().url).port)).sort();
    const endpoints = (await call(0, '/api/v1/namespaces/default/endpoints/kubernetes')).json<{
      subsets: { addresses: { ip: string }[]; ports: { port: number }[] }[];
    }>();
    expect(endpoints.subsets.map((s) => s.ports[0]?.port).sort()).toEqual(ports);
    expect(endpoints.subsets.every((s) => s.addresses[0]?.ip === '127.0.0.1')).toBe(true);
    const slice = (await call(1, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json<{
      metadata: { labels: Record<string, string> };
      ports: { port: number }[];
    }>();
    expect(slice.metadata.labels['kubernetes.io/service-name']).toBe('kubernetes');
    expect(slice.ports.map((p) => p.port).sort()).toEqual(ports);
  });

  for (const form of ['?watch=true', '/watch/'] as const) {
    it(`watch (${form}) delivers ADDED, MODIFIED and DELETED from a resourceVersion`, async () => {
      const list = (await call(0, '/api/v1/namespaces/w/configmaps')).json<{ metadata: { resourceVersion: string } }>();
      const path =
        form === '/watch/'
          ? `/api/v1/watch/namespaces/w/configmaps?resourceVersion=${list.metadata.resourceVersion}`
          : `/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
      const stream = await openStream(cluster, url(0), path);
      expect(stream.status).toBe(200);
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: '1' } });
      await call(1, '/api/v1/namespaces/w/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await call(2, '/api/v1/namespaces/w/configmaps/c', {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{"data":{"v":"2"}}',
      });
      await call(1, '/api/v1/namespaces/w/configmaps/c', { method: 'DELETE' });
      const seen = [];
      for (let i = 0; i < 3; i++)
        seen.push(
          JSON.parse((await stream.nextLine()) as string) as { type: string; object: { apiVersion: string; data?: { v: string } } },
        );
      expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(seen[1]?.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { v: '2' } });
      stream.close();
    });
  }

  it('watch sends BOOKMARKs when asked, honours timeoutSeconds, and 410 Expired for a lost resourceVersion', async () => {
    const bookmarks = await openStream(
      cluster,
      url(0),
      '/api/v1/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=' + cluster.store.currentResourceVersion(),
    );
    expect(JSON.parse((await bookmarks.nextLine()) as string)).toMatchObject({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } },
    });
    await bookmarks.ended;
    // Push the first events out of the 10,000-event history.
    const cm = { group: '', resource: 'configmaps' };
    let obj = cluster.store.create(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'churn', namespace: 'w' } });
    for (let i = 0; i < 10_001; i++) obj = cluster.store.update(cm, { ...obj, data: { i: String(i) } });
    const expired = await openStream(cluster, url(0), '/api/v1/configmaps?watch=true&resourceVersion=1');
    expect(JSON.parse((await expired.nextLine()) as string)).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
    await expired.ended;
  });

  it('pods/log answers lines and follows; exec upgrades to an echoing tunnel', async () => {
    await call(0, '/api/v1/namespaces/default/pods', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'shell' },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      }),
    });
    const log = await call(0, '/api/v1/namespaces/default/pods/shell/log');
    expect(log.headers['content-type']).toBe('text/plain');
    expect(log.body.trim().split('\n')).toHaveLength(3);
    const follow = await openStream(cluster, url(1), '/api/v1/namespaces/default/pods/shell/log?follow=true&tailLines=0');
    expect(await follow.nextLine(3000)).toContain('simulated log line 1');
    follow.close();

    const { port } = new URL(url(1));
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: Number(port),
      ca: cluster.ca,
      servername: 'localhost',
      ALPNProtocols: ['http/1.1'],
    });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    await new Promise((r) => socket.once('secureConnect', r));
    socket.write(
      'POST /api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${cluster.token}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v5.channel.k8s.io\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n`,
    );
    const until = async (text: string) => {
      for (let i = 0; i < 100 && !received.includes(text); i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toContain(text);
    };
    await until('\r\n\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(received).toContain('Upgrade: SPDY/3.1');
    expect(received).toContain('X-Stream-Protocol-Version: v5.channel.k8s.io');
    socket.write('echo hello\n');
    await until('echo hello\n');
    socket.destroy();
    const missing = await call(0, '/apis/lifecycle.k8s.io/v1alpha1/namespaces/default/pods/shell/exec', {
      headers: { connection: 'Upgrade', upgrade: 'websocket' },
    });
    expect(missing.status).toBe(404);
  });

  it('drain fails readyz, ends open watches cleanly, refuses connections after the grace; restart brings a new lease holder and release', async () => {
    const server = cluster.server('sim-1');
    expect(() => cluster.server('nope')).toThrowError(/no simulated apiserver named "nope"/);
    const before = (await call(0, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-sim-1')).json<{
      spec: { holderIdentity: string };
    }>().spec.holderIdentity;
    const watch = await openStream(
      cluster,
      url(0),
      '/api/v1/configmaps?watch=true&resourceVersion=' + cluster.store.currentResourceVersion(),
    );
    const drained = server.drain(300);
    await watch.ended;
    const readyz = await call(0, '/readyz', { auth: false });
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]shutdown failed: reason withheld\n');
    expect(readyz.body).toMatch(/readyz check failed\n$/);
    expect((await call(0, '/livez', { auth: false })).status).toBe(200);
    const endpoints = (await call(1, '/api/v1/namespaces/default/endpoints/kubernetes')).json<{ subsets: unknown[] }>();
    expect(endpoints.subsets).toHaveLength(2);
    await drained;
    await expect(call(0, '/version')).rejects.toThrow(/ECONNREFUSED/);
    await server.stop();
    expect(server.info().state).toBe('down');
    const portBefore = url(0);
    server.setRelease(loadRelease('v1.37-dev'));
    await server.start();
    expect(url(0)).toBe(portBefore);
    expect(server.info()).toMatchObject({ state: 'ready', release: 'v1.37-dev', gitVersion: 'v1.37.0-dev' });
    expect((await call(0, '/version')).json().gitVersion).toBe('v1.37.0-dev');
    const after = (await call(0, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-sim-1')).json<{
      spec: { holderIdentity: string };
    }>().spec.holderIdentity;
    expect(after).not.toBe(before);
    expect(
      events.filter((e) => e.type === 'server-state' && e.server === 'sim-1').map((e) => (e.type === 'server-state' ? e.state : '')),
    ).toEqual(['draining', 'down', 'starting', 'ready']);
  });

  it('writes a kubeconfig with one cluster, context and user per server', async () => {
    const config = parseYaml(cluster.kubeconfig()) as {
      clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
      contexts: { name: string }[];
      users: { user: { token: string } }[];
      'current-context': string;
    };
    expect(config.clusters.map((c) => c.name)).toEqual(['sim-1', 'sim-2', 'sim-3']);
    expect(config.clusters[1]?.cluster.server).toBe(url(1));
    expect(Buffer.from(config.clusters[0]?.cluster['certificate-authority-data'] as string, 'base64').toString()).toBe(cluster.ca);
    expect(config.contexts.map((c) => c.name)).toEqual(['sim-1', 'sim-2', 'sim-3']);
    expect(config.users[0]?.user.token).toBe(cluster.token);
    expect(config['current-context']).toBe('sim-1');
  });
});

describe('plain HTTP mode', () => {
  it('serves without authentication and without a CA or token', async () => {
    const cluster = await startSimCluster({ releases: [loadRelease('v1.37-dev')], http: true, names: ['plain'] });
    try {
      expect(cluster.ca).toBeUndefined();
      expect(cluster.token).toBeUndefined();
      expect(cluster.servers[0]?.info().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await callServer(cluster, cluster.servers[0]?.info().url as string, '/api/v1/namespaces');
      expect(res.status).toBe(200);
      expect(res.json<{ items: { metadata: { name: string } }[] }>().items.map((n) => n.metadata.name)).toContain('default');
    } finally {
      await cluster.close();
    }
  });
});
