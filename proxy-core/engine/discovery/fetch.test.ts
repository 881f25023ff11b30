// Reading one server's own discovery: aggregated with ETag reuse, the legacy crawl of a server
// without aggregated discovery, and a failed read leaving the last document in place (stale).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentServerReader } from '../cluster/server-reader.js';
import { ServerSet } from '../cluster/server-set.js';
import { aggregatedDiscovery, legacyApiGroupList, legacyApiVersions, legacyResourceList, loadRelease } from '../releases/index.js';
import { startSimCluster } from '../../sim/index.js';
import { fetchServerDiscovery } from './fetch.js';
import { gvrKey } from './types.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** An apiserver from before aggregated discovery: only the legacy documents. */
async function legacyOnlyServer(release: string): Promise<{ url: string; requests: string[] }> {
  const catalog = loadRelease(release);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const path = req.url ?? '';
    const json = (doc: unknown) =>
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(doc ?? { kind: 'Status', code: 404 }));
    if (path === '/api') return json(legacyApiVersions(catalog, '127.0.0.1:1'));
    if (path === '/apis') return json(legacyApiGroupList(catalog));
    const m = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
    if (m) {
      const gv = m[1] as string;
      const [group, version] = gv.includes('/') ? (gv.split('/') as [string, string]) : ['', gv];
      return json(legacyResourceList(catalog, group, version));
    }
    json(undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe('per-server discovery', () => {
  it('reads aggregated discovery with the nopeer profile first, and reuses it on 304', async () => {
    const sim = await startSimCluster({ releases: [loadRelease('v1.37-dev')], http: true });
    try {
      const client = new AgentServerReader({ name: 'sim-1', url: sim.servers[0]!.info().url });
      const first = await fetchServerDiscovery(client);
      expect(first.source).toBe('aggregated-v2');
      expect(first.gvrs.length).toBe(100);
      expect(first.etags.apis).toMatch(/^"[0-9A-F]+"$/);
      const second = await fetchServerDiscovery(client, first);
      expect(second.apis).toBe(first.apis); // the same object: the server answered 304
      expect(second.changedAt).toBe(first.changedAt);
      await client.close();
    } finally {
      await sim.close();
    }
  });

  it('crawls a server without aggregated discovery (legacy) and finds the same GVRs', async () => {
    const legacy = await legacyOnlyServer('v1.36-dev');
    const client = new AgentServerReader({ name: 'old', url: legacy.url });
    const d = await fetchServerDiscovery(client);
    await client.close();
    expect(d.source).toBe('legacy');
    const expected = [
      ...aggregatedDiscovery(loadRelease('v1.36-dev'), 'api').items,
      ...aggregatedDiscovery(loadRelease('v1.36-dev'), 'apis').items,
    ].flatMap((g) =>
      g.versions.flatMap((v) =>
        (v.resources ?? []).map((r) => gvrKey({ group: g.metadata?.name ?? '', version: v.version, resource: r.resource })),
      ),
    );
    expect(d.gvrs.map(gvrKey).sort()).toEqual(expected.sort());
    expect(legacy.requests).toContain('/apis/apps/v1');
  });

  it('a failed read keeps the last document and marks it stale', async () => {
    const sim = await startSimCluster({ releases: [loadRelease('v1.37-dev')], http: true });
    const servers = new ServerSet([{ name: 'sim-1', url: sim.servers[0]!.info().url }], {
      probeIntervalMs: 60_000,
      discoveryIntervalMs: 60_000,
    });
    try {
      await servers.start();
      expect(servers.status('sim-1')?.discovery).toMatchObject({ state: 'ok', gvrCount: 100 });
      await sim.servers[0]!.stop();
      await servers.refreshDiscovery('sim-1');
      expect(servers.status('sim-1')?.discovery).toMatchObject({ state: 'stale', gvrCount: 100 });
      expect(servers.status('sim-1')?.discovery.error).toMatch(/ECONNREFUSED|fetch failed|connect/);
      await servers.probe('sim-1');
      expect(servers.health('sim-1')).toBe('unreachable');
    } finally {
      await servers.close();
      await sim.close();
    }
  });
});
