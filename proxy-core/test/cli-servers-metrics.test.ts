// `peerscope servers --output json` never gives 0 for a count it did not read: against simulated servers
// found from a kubeconfig (their readyz is a kube-apiserver's, their /metrics has none of its
// counters) the own-proxy totals beside not-exposed and the request counts are null. The real
// counts, from real kube-apiservers, are in test/kube/cluster-traffic.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownMvpSchema } from '../contract/own-mvp.js';
import { serverMetricsSchema } from '../contract/server-metrics.js';
import { loadRelease } from '../engine/releases/index.js';
import { startSimCluster } from '../sim/index.js';
import { repoRoot } from '../../test/fixtures.js';

function listServers(kubeconfig: string, output: 'json' | 'text') {
  return new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      ['bin/peerscope', 'servers', '--kubeconfig', kubeconfig, '--output', output],
      { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, HTTPS_PROXY: '' } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr })),
    );
  });
}

describe('peerscope servers: a count not read is null', () => {
  it('own-proxy totals beside not-exposed, and request counts of a /metrics without them, are null in JSON and named in text', async () => {
    const sim = await startSimCluster({ releases: [loadRelease('v1.36-dev'), loadRelease('v1.37-dev')], names: ['old', 'new'] });
    try {
      const kubeconfig = join(mkdtempSync(join(tmpdir(), 'servers-metrics-')), 'config');
      writeFileSync(kubeconfig, sim.kubeconfig());
      const { stdout } = await listServers(kubeconfig, 'json');
      const servers = (
        JSON.parse(stdout) as { servers: { name: string; displayName: string; ownMvp?: unknown; apiserverMetrics?: unknown }[] }
      ).servers;
      expect(servers).toHaveLength(2);
      // Named by their leases, shown by the host names the leases give.
      expect(servers.map((s) => [s.name, s.displayName])).toEqual([
        ['apiserver-new', 'new'],
        ['apiserver-old', 'old'],
      ]);
      for (const s of servers) {
        const mvp = ownMvpSchema.parse(s.ownMvp);
        expect(mvp.metrics).toMatchObject({
          state: 'not-exposed',
          reroutedTotal: null,
          proxyErrorsTotal: null,
          discoverySyncErrorsTotal: null,
        });
        const m = serverMetricsSchema.parse(s.apiserverMetrics);
        expect(m).toMatchObject({ state: 'read', requests: null, requestsTotal: null, notFoundTotal: null, deprecatedApis: null });
        expect(m.error).toBe('its /metrics has no apiserver_request_total');
      }
      expect(stdout).not.toMatch(/"(rerouted|proxyErrors|discoverySyncErrors|requests|serverErrors|notFound)Total": 0/);

      const text = (await listServers(kubeconfig, 'text')).stdout;
      console.log(text.trim());
      // The host name first, the lease name beside it (a LEASE column since the display names came).
      expect(text).toMatch(/^NAME {2,}LEASE {2,}URL /m);
      expect(text).toMatch(/^(old|new) {2,}apiserver-\1 {2,}https:\/\/127\.0\.0\.1:\d+ .* off +not-exposed$/m);
      expect(text).toMatch(/^old's own Mixed Version Proxy is off/m);
      expect(text).toContain('/metrics counts no requests: its /metrics has no apiserver_request_total');
      expect(text).toContain('its /metrics exposes no peer-proxy counters (no peer proxy to count)');
    } finally {
      await sim.close();
    }
  });
});
