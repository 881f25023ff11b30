// The real kubectl through the local port, in front of simulated HTTPS apiservers of two releases
// (issue: proxy-core acceptance). The policy pins every request to the older server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries, loadRelease } from '../../proxy-core/engine/releases/index.js';
import { startBed, type Bed } from '../../proxy-core/test/harness.js';
import { hasKubectl, kubectlAt } from './kubectl.js';

const OLD = 'v1.36-dev';
const NEW = 'v1.37-dev';
// storagemigration.k8s.io/v1 storageversionmigrations: only v1.37-dev serves it.
const NEW_ONLY = 'storageversionmigrations.v1.storagemigration.k8s.io';

function resourceNames(release: string): string[] {
  return [...new Set([...catalogEntries(loadRelease(release))].map((e) => e.resource.name))];
}

describe.skipIf(!hasKubectl)('the real kubectl through the local port', () => {
  let bed: Bed;
  let kubectl: ReturnType<typeof kubectlAt>;
  const received: { server: string; url: string; headers: Record<string, string | string[] | undefined> }[] = [];

  beforeAll(async () => {
    bed = await startBed({ old: loadRelease(OLD), new: loadRelease(NEW) }, { policy: { kind: 'pin', server: 'old' } }, { http: false });
    bed.sim.onRequest((server, req) => received.push({ server, url: req.url, headers: req.headers }));
    kubectl = kubectlAt(bed.url);
  });
  afterAll(() => bed?.close());

  it('api-resources lists the union of both releases', async () => {
    const r = await kubectl(['api-resources', '--no-headers', '-o', 'name']);
    expect(r.stderr).toBe('');
    const listed = new Set(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('.')[0]),
    );
    const union = new Set([...resourceNames(OLD), ...resourceNames(NEW)]);
    for (const name of union) expect(listed.has(name), name).toBe(true);
    expect(listed.has('evictionrequests')).toBe(true); // lifecycle.k8s.io/v1alpha1: only the newer release
  });

  it('get of a resource only the newer release serves succeeds, rerouted with x-kubernetes-peer-proxied: true', async () => {
    received.length = 0;
    const r = await kubectl(['get', NEW_ONLY, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).kind).toBe('List');
    const atNew = received.find((q) => q.url.startsWith('/apis/storagemigration.k8s.io/v1/storageversionmigrations'));
    expect(atNew?.server).toBe('new');
    expect(atNew?.headers['x-kubernetes-peer-proxied']).toBe('true');
  });

  it("a resource no server serves gives kubectl's not-found", async () => {
    const r = await kubectl(['get', 'nosuchthings']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the server doesn\'t have a resource type "nosuchthings"');
  });

  it("with --discovery nopeer only the older server's resources are listed", async () => {
    bed.core.setDiscoveryMode('nopeer');
    try {
      const fresh = kubectlAt(bed.url);
      const r = await fresh(['api-resources', '--no-headers', '-o', 'name']);
      const listed = new Set(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('.')[0]),
      );
      const onlyNew = resourceNames(NEW).filter((n) => !resourceNames(OLD).includes(n));
      expect(onlyNew.length).toBeGreaterThan(0);
      for (const name of onlyNew) expect(listed.has(name), name).toBe(false);
      for (const name of resourceNames(OLD)) expect(listed.has(name), name).toBe(true);
    } finally {
      bed.core.setDiscoveryMode('peer-aggregated');
    }
  });

  it('with the newer server stopped, the same get fails with kubectl showing the 503 Status', async () => {
    await bed.sim.server('new').stop();
    const r = await kubectl(['get', NEW_ONLY]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (ServiceUnavailable)');
  });
});
