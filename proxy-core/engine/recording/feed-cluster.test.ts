// What a running core records beyond health, release and discovery, read back from its file: each
// server's missing API registrations (apiserver stand-ins sharing one store of APIServices, one
// removed then restored), each server's /metrics reads (simulated servers given as real ones, read
// every 100 ms: reads that counted the same are one change), and the simulated controller's rollout
// steps as it takes them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCoreService } from '../../hosts/service/service.js';
import { createSimController } from '../../hosts/service/sim-controller.js';
import { startSimCluster, type SimCluster } from '../../sim/index.js';
import { startRegistrationStandIns, type RegistrationStandIns } from '../../test/registration-standins.js';
import { createCore, type Core } from '../core.js';
import { loadRelease } from '../releases/index.js';
import { RecordingReader } from './reader.js';
import { stateAt } from './state-at.js';

const dir = mkdtempSync(join(tmpdir(), 'feed-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let standIns: RegistrationStandIns | undefined;
let sim: SimCluster | undefined;
let core: Core | undefined;
afterEach(async () => {
  await core?.close(0);
  await standIns?.close();
  await sim?.close();
  core = standIns = sim = undefined;
});

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function withReader<T>(file: string, read: (r: RecordingReader) => T): T {
  const r = RecordingReader.open(file);
  try {
    return read(r);
  } finally {
    r.close();
  }
}

describe('the recording of the cluster', () => {
  it('records each server’s missing registrations as they change, once per change, and the moment’s findings equal the live ones', async () => {
    const file = join(dir, 'registrations.recording.sqlite');
    standIns = await startRegistrationStandIns([
      { name: 'old', gitVersion: 'v1.36.3', groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'] } },
      {
        name: 'new',
        gitVersion: 'v1.37.2',
        groups: { 'apiregistration.k8s.io': ['v1'], 'apps.example.io': ['v1'], 'storagemigration.k8s.io': ['v1', 'v1beta1'] },
      },
    ]);
    core = createCore({
      servers: standIns.servers,
      listen: { host: '127.0.0.1', port: 0 },
      discoveryIntervalMs: 600_000,
      record: { file },
    });
    await core.start();
    const service = createCoreService(core);
    await until(() => core?.servers.apiWatchOf()?.state('apiservices') === 'watching', 'the APIService watch');
    standIns.deregister('storagemigration.k8s.io/v1');
    await until(async () => (await service.getRouteTable()).missingRegistrations?.[0]?.missingFrom?.length === 2, 'the finding');
    const live = (await service.getRouteTable()).missingRegistrations;
    const missingAt = Date.now();
    // Several re-reads that change nothing record nothing more.
    await core.servers.refreshAllDiscovery();
    await core.servers.refreshAllDiscovery();
    standIns.register('storagemigration.k8s.io/v1');
    await until(async () => (await service.getRouteTable()).missingRegistrations?.length === 0, 'the finding to clear');
    service.close();
    await core.close(0);

    withReader(file, (r) => {
      // Each server's legacy /apis is re-read on its own: their changes interleave in either order.
      const changes = r.changes({}, ['registration']);
      for (const server of ['old', 'new'])
        expect(changes.filter((c) => c.subject === server).map((c) => c.value)).toEqual(['', 'storagemigration.k8s.io/v1', '']);
      expect(r.registrationsAt(missingAt).map((x) => [x.server, x.groupVersions])).toEqual([
        ['old', ['storagemigration.k8s.io/v1']],
        ['new', ['storagemigration.k8s.io/v1']],
      ]);
      const known = (name: string) => ({ url: `https://${name}`, source: 'flag' as const });
      expect(stateAt(r, missingAt, known).routeTable.missingRegistrations).toEqual(live);
      expect(stateAt(r, Date.now(), known).routeTable.missingRegistrations).toEqual([]);
    });
  });

  it('records /metrics reads once while they count the same, and the controller’s rollout steps', async () => {
    const file = join(dir, 'metrics.recording.sqlite');
    const from = loadRelease('v1.36-dev');
    const to = loadRelease('v1.37-dev');
    sim = await startSimCluster({ releases: [from, from], names: ['cp-1', 'cp-2'] });
    // Given as real servers (not 'sim'), their /metrics is read as a real server's.
    const servers = sim.serverConfigs().map((s) => ({ ...s, source: 'flag' as const }));
    core = createCore({
      servers,
      listen: { host: '127.0.0.1', port: 0 },
      ownMetricsIntervalMs: 100,
      probeIntervalMs: 100,
      record: { file },
    });
    await core.start();
    const reads = new Map<string, Set<number>>();
    await until(() => {
      for (const s of core!.serverStatuses()) {
        const at = s.apiserverMetrics?.readAt;
        if (at !== undefined) reads.set(s.name, (reads.get(s.name) ?? new Set()).add(at));
      }
      return [...reads.values()].filter((r) => r.size >= 3).length === 2;
    }, 'three /metrics reads of each server');
    const live = core.serverStatuses().find((s) => s.name === 'cp-1')!.apiserverMetrics!;

    const target = core;
    const rollout = createSimController({
      servers: sim.servers,
      from: from.release,
      to,
      rollout: { drainSeconds: 0, downSeconds: 0 },
      onStep: (server, step) => target.recordStep(server, step),
    });
    rollout.startRollout();
    await until(() => rollout.status().rollout.phase === 'done', 'the rollout', 30_000);
    await rollout.close();
    await core.close(0);

    withReader(file, (r) => {
      // A simulated server's /metrics counts nothing of kube-apiserver's: each read gave the same summary until the rollout.
      const metrics = r.changes({}, ['metrics']);
      const first = metrics.filter((c) => c.subject === 'cp-1')[0]!;
      expect(metrics.filter((c) => c.value === first.value && c.subject === 'cp-1')).toHaveLength(1);
      const read = r.metricsAt('cp-1', first.at + 1);
      expect(read).toMatchObject({ state: live.state, error: live.error, requests: live.requests, requestsTotal: live.requestsTotal });
      expect(read?.readAt).toBe(first.at);
      expect(r.metricsAt('cp-1', first.at - 1)).toBeUndefined();
      expect(stateAt(r, first.at + 1, () => undefined).servers.find((s) => s.name === 'cp-1')?.apiserverMetrics).toMatchObject({
        state: live.state,
        readAt: first.at,
      });

      const steps = r.changes({}, ['step']).map((c) => `${c.subject}: ${c.value}`);
      expect(steps).toEqual([
        `: rollout started: ${from.release} → ${to.release}`,
        `cp-1: drain (${from.release} → ${to.release})`,
        `cp-1: stop and upgrade to ${to.release}`,
        `cp-1: restart on ${to.release}`,
        `cp-2: drain (${from.release} → ${to.release})`,
        `cp-2: stop and upgrade to ${to.release}`,
        `cp-2: restart on ${to.release}`,
        `: rollout done: every server on ${to.release}`,
      ]);
    });
  }, 60_000);
});
