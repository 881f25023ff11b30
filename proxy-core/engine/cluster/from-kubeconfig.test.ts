// Finding every apiserver of a (simulated, HTTPS) cluster from the kubeconfig an operator already uses.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../releases/index.js';
import { startSimCluster, type SimCluster } from '../../sim/index.js';
import { AgentServerReader } from './server-reader.js';
import { serversFromKubeconfig } from './from-kubeconfig.js';
import { ServerSet } from './server-set.js';

describe('servers from a kubeconfig', () => {
  let sim: SimCluster;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.36-dev'), loadRelease('v1.37-dev')] });
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'kc-')), 'config');
    writeFileSync(kubeconfig, sim.kubeconfig());
  });
  afterAll(() => sim?.close());

  it('finds every apiserver from the identity leases, each at its own address, with the kubeconfig credentials', async () => {
    const found = await serversFromKubeconfig({ kubeconfig });
    expect(found.warnings).toEqual([]);
    expect(found.servers.map((s) => [s.name, s.url, s.source])).toEqual(
      sim.servers.map((s) => [`apiserver-${s.name}`, s.info().url, 'lease']),
    );
    // The host name each lease gives (kubernetes.io/hostname) travels with the server, for display.
    expect(found.servers.map((s) => s.hostname)).toEqual(sim.servers.map((s) => s.name));
    // Each server answers an authenticated, TLS-verified read with the kubeconfig's token and CA.
    for (const server of found.servers) {
      const reader = new AgentServerReader(server);
      const res = await reader.get('/api/v1/namespaces/default/configmaps');
      await reader.close();
      expect(res.status, server.name).toBe(200);
    }
  });

  it('--server NAME=URL adds a server, or overrides one by its lease name or its host name', async () => {
    const found = await serversFromKubeconfig({
      kubeconfig,
      overrides: [
        { name: 'apiserver-sim-1', url: 'https://127.0.0.1:1' },
        { name: 'sim-3', url: 'https://127.0.0.1:3' },
        { name: 'extra', url: 'https://127.0.0.1:2' },
      ],
    });
    expect(found.servers.find((s) => s.name === 'apiserver-sim-1')?.url).toBe('https://127.0.0.1:1');
    expect(found.servers.find((s) => s.name === 'apiserver-sim-3')?.url).toBe('https://127.0.0.1:3');
    expect(found.servers.map((s) => s.name)).toContain('extra');
    // A person reads the host names of lease-found servers (overridden or not) and the given name of
    // a --server; the identities stay the lease names.
    const servers = new ServerSet(found.servers);
    try {
      expect(servers.statuses().map((s) => [s.name, s.displayName])).toEqual([
        ['apiserver-sim-1', 'sim-1'],
        ['apiserver-sim-2', 'sim-2'],
        ['apiserver-sim-3', 'sim-3'],
        ['extra', 'extra'],
      ]);
    } finally {
      await servers.close();
    }
  });

  it('a kubeconfig whose CA does not verify the servers fails with a clear TLS error', async () => {
    const wrong = join(mkdtempSync(join(tmpdir(), 'kc-')), 'config');
    const other = await startSimCluster({ releases: [loadRelease('v1.36-dev')] });
    // The other cluster's CA, this cluster's servers.
    writeFileSync(
      wrong,
      sim
        .kubeconfig()
        .replace(/certificate-authority-data: .*/g, `certificate-authority-data: ${Buffer.from(other.ca ?? '').toString('base64')}`),
    );
    await other.close();
    // Nothing could be read from any server: the error names the server and says what to fix.
    await expect(serversFromKubeconfig({ kubeconfig: wrong })).rejects.toThrow(
      /^https:\/\/127\.0\.0\.1:\d+ presented a certificate the kubeconfig's certificate-authority does not verify \(.*(certificate|verify).*\): Peerscope always verifies apiserver certificates/,
    );
  });
});
