// Sessions, as the desktop app switches between them: the simulated cluster, a kubeconfig's cluster,
// and the one CoreClient whose subscribers follow every switch.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreClientMethods, type CoreClient, type CoreEvent } from '../../contract/client.js';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../../sim/index.js';
import { kubeconfigContextNames, prepareClusterSession } from './cluster.js';
import { startDemoSession } from './demo.js';
import { createSwitchingService } from './switching-service.js';

/** A CoreClient whose every call answers with its own name, and whose events the test pushes. */
function fakeService(name: string) {
  const listeners = new Set<(e: CoreEvent) => void>();
  const service = Object.fromEntries(
    Object.keys(coreClientMethods).map((m) => [m, async (...args: unknown[]) => ({ from: name, method: m, args })]),
  ) as unknown as CoreClient;
  service.subscribe = (l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  };
  return { service, label: name, push: (e: CoreEvent) => listeners.forEach((l) => l(e)), listeners };
}

const settings = (mode: 'nopeer' | 'peer-aggregated'): CoreEvent => ({
  type: 'settings',
  settings: { policy: 'round-robin', discoveryMode: mode },
});

describe('the switching client', () => {
  it('refuses calls, with a clear message, before any cluster is open', async () => {
    await expect(createSwitchingService().getOverview()).rejects.toThrow(/no cluster is open/);
  });

  it('forwards every contract method to the current session, with its arguments', async () => {
    const client = createSwitchingService();
    client.switchTo(fakeService('a'));
    for (const method of Object.keys(coreClientMethods)) {
      const answer = await (client as unknown as Record<string, (x: unknown) => Promise<unknown>>)[method]!({ probe: method });
      expect(answer, method).toEqual({ from: 'a', method, args: [{ probe: method }] });
    }
  });

  it('moves its subscribers to the next session, tells them, and leaves the previous one', async () => {
    const client = createSwitchingService();
    const a = fakeService('a');
    const b = fakeService('b');
    client.switchTo(a);
    const seen: CoreEvent[] = [];
    const unsubscribe = client.subscribe((e) => seen.push(e));
    a.push(settings('nopeer'));
    expect(client.switchTo(b)).toBe(a);
    expect(a.listeners.size).toBe(0);
    a.push(settings('peer-aggregated')); // the old session's events no longer reach anyone
    b.push(settings('nopeer'));
    expect(seen).toEqual([settings('nopeer'), { type: 'session', id: '2', label: 'b' }, settings('nopeer')]);
    expect(await client.getOverview()).toMatchObject({ from: 'b' });
    unsubscribe();
    expect(b.listeners.size).toBe(0);
  });
});

describe('the simulated-cluster session', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => busy.close(() => r())));

  it('fails with the address when the port is taken, or takes a free port when asked to', async () => {
    await expect(startDemoSession({ listen: { host: '127.0.0.1', port: busyPort }, trafficRps: 0 })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${busyPort}: EADDRINUSE`,
    );
    const session = await startDemoSession({
      listen: { host: '127.0.0.1', port: busyPort },
      anyPortIfBusy: true,
      trafficRps: 0,
      servers: 2,
    });
    try {
      expect(session.address.port).not.toBe(busyPort);
      const overview = await session.service.getOverview();
      expect(overview.listen?.port).toBe(session.address.port);
      expect(overview.servers.map((s) => s.name)).toEqual(session.sim.servers.map((s) => s.name));
      expect(overview.sim?.rollout.phase).toBe('idle');
    } finally {
      await session.close();
    }
  });
});

describe('a kubeconfig session', () => {
  let sim: SimCluster;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'kc-session-')), 'config');
    writeFileSync(kubeconfig, sim.kubeconfig());
  });
  afterAll(() => sim?.close());

  it('finds the servers before it listens, then routes through them', async () => {
    const prepared = await prepareClusterSession({ kubeconfig, listen: { host: '127.0.0.1', port: 0 } });
    expect(prepared.serverCount).toBe(2);
    const session = await prepared.start();
    try {
      const overview = await session.service.getOverview();
      expect(overview.servers.map((s) => s.name).sort()).toEqual(sim.servers.map((s) => `apiserver-${s.name}`).sort());
      const snapshot = await session.service.takeSnapshot();
      expect(snapshot.source.context).toBe(prepared.contextName);
      // Not faithful unless asked: the settings and the snapshot say nothing of it.
      expect((await session.service.getOverview()).faithful).toBeUndefined();
      expect(snapshot.settings.faithful).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it("with faithful (the app's --faithful), the settings and every snapshot say so, and the port answers as the handling server", async () => {
    const prepared = await prepareClusterSession({
      kubeconfig,
      listen: { host: '127.0.0.1', port: 0 },
      faithful: true,
      policy: { kind: 'round-robin' },
    });
    const session = await prepared.start();
    try {
      expect(await session.service.getOverview()).toMatchObject({ faithful: true });
      expect((await session.service.takeSnapshot()).settings).toMatchObject({ faithful: true, discoveryMode: 'peer-aggregated' });
      // P8 off: legacy /apis (plain JSON) is the handling server's own (non-resource), not merged.
      const res = await fetch(`${session.address.url}/apis`, { headers: { accept: 'application/json' } });
      await res.text();
      expect(res.headers.get('x-peerscope-route')).toMatch(/outcome=non-resource(;|$)/);
    } finally {
      await session.close();
    }
  });

  it('rejects a broken kubeconfig with the file named, before anything listens', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'kc-broken-')), 'config');
    writeFileSync(broken, 'apiVersion: v1\nkind: Config\nclusters: [\n');
    await expect(prepareClusterSession({ kubeconfig: broken })).rejects.toThrow(broken);
  });

  it('lists context names for a chooser, and none for a file it cannot read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kc-ctx-')), 'config');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Config\ncurrent-context: b\ncontexts:\n- name: a\n  context: {cluster: x}\n- name: b\n  context: {cluster: x}\n',
    );
    expect(kubeconfigContextNames(file)).toEqual({ names: ['a', 'b'], current: 'b' });
    expect(kubeconfigContextNames(join(file, 'missing'))).toEqual({ names: [] });
  });
});
